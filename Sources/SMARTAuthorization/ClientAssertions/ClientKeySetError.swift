/// Why a client's JWKS cannot be registered or used: each case names the key (by its index in
/// `keys` and its `kid`) and what is wrong with it.
public enum ClientKeySetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The document is larger than ``ClientKeySet/maximumDocumentBytes``.
    case tooLarge(bytes: Int)
    /// The document is not JSON: the reader's message.
    case notJSON(String)
    /// The document is not an object with a `keys` array.
    case missingKeys
    /// An element of `keys` is not an object.
    case keyNotAnObject(index: Int)
    /// A key lacks a member it needs (or has one of the wrong JSON type).
    case missingMember(index: Int, kid: String?, member: String)
    /// A key carries a private member (`d`, `p`, `q`, `dp`, `dq`, `qi`, `oth` or `k`): a
    /// client registers only public keys, and a private key given by mistake is not kept.
    case privateMemberPresent(index: Int, kid: String?, member: String)
    /// A key's members do not make a valid public key: what is wrong.
    case invalidKey(index: Int, kid: String?, reason: String)
    /// An RSA key smaller than 2048 bits.
    case rsaKeyTooSmall(index: Int, kid: String?, bits: Int)
    /// No key in the set can check ES384 or RS384 signatures (P-384 EC or RSA signing keys).
    case noUsableKeys

    public var description: String {
        switch self {
        case .tooLarge(let n): return "the key set is \(n) bytes, more than \(ClientKeySet.maximumDocumentBytes)"
        case .notJSON(let m): return "the key set is not JSON: \(m)"
        case .missingKeys: return "the key set is not an object with a \"keys\" array"
        case .keyNotAnObject(let i): return "keys[\(i)] is not an object"
        case .missingMember(let i, let kid, let m): return "\(Self.name(i, kid)) has no \(m)"
        case .privateMemberPresent(let i, let kid, let m):
            return "\(Self.name(i, kid)) has the private member \(m); register public keys only"
        case .invalidKey(let i, let kid, let r): return "\(Self.name(i, kid)) is not a valid key: \(r)"
        case .rsaKeyTooSmall(let i, let kid, let bits): return "\(Self.name(i, kid)) is a \(bits)-bit RSA key; at least 2048 bits are needed"
        case .noUsableKeys: return "the key set has no P-384 EC or RSA signing key for ES384 or RS384"
        }
    }

    private static func name(_ index: Int, _ kid: String?) -> String {
        "keys[\(index)]" + (kid.map { " (kid \($0.debugDescription))" } ?? "")
    }
}
