import ByteEncodings
import Crypto
import CryptoExtras
import FHIR
import Foundation

/// The public keys a confidential asymmetric client registered (a JWKS given at registration
/// or fetched from its `jwks_uri`), ready to check its client assertions.
///
/// Only signing keys for the accepted algorithms are kept: EC keys on P-384 (ES384) and RSA
/// keys of at least 2048 bits (RS384). Keys of other kinds (P-256, OKP, `oct`), keys whose
/// `use` is not `sig`, whose `alg` is another algorithm, or whose `key_ops` lack `verify` are
/// skipped. Any private member anywhere refuses the whole set, as does a malformed key of a
/// kind that would have been kept.
public struct ClientKeySet: Sendable {
    /// One usable public key.
    public struct Key: Sendable {
        /// The key's `kid`, if it has one.
        public let keyID: String?
        /// The algorithm the key checks.
        public let algorithm: ClientAssertionAlgorithm
        let material: Material
    }

    enum Material: Sendable {
        case p384(P384.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    /// The largest key set document read, in bytes.
    public static let maximumDocumentBytes = 256 * 1024
    /// The largest RSA modulus accepted, in bits.
    public static let maximumRSABits = 8192
    /// Members that only private (or symmetric) keys have.
    static let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// The usable keys, in document order.
    public let keys: [Key]

    /// Reads a JWKS document (`{"keys":[…]}`).
    public init(data: Data) throws(ClientKeySetError) {
        guard data.count <= Self.maximumDocumentBytes else { throw .tooLarge(bytes: data.count) }
        let limits = JSONLimits(maxDocumentBytes: Self.maximumDocumentBytes, maxDepth: 16, maxStringBytes: 64 * 1024, maxContainerElements: 1000)
        let value: JSONValue
        do { value = try JSONReader(limits: limits).read(data) } catch { throw .notJSON(error.description) }
        guard let list = value["keys"]?.arrayValue else { throw .missingKeys }
        var keys: [Key] = []
        for (index, element) in list.enumerated() {
            guard let object = element.objectValue else { throw .keyNotAnObject(index: index) }
            if let key = try Self.key(object, index: index) { keys.append(key) }
        }
        guard !keys.isEmpty else { throw .noUsableKeys }
        self.keys = keys
    }

    /// Reads a JWKS document from text.
    public init(json: String) throws(ClientKeySetError) {
        try self.init(data: Data(json.utf8))
    }

    /// The keys that may have made a signature with `algorithm` and header `kid`: those with
    /// that `kid` when one is given, else every key for the algorithm.
    func candidates(kid: String?, algorithm: ClientAssertionAlgorithm) throws(ClientAssertionError) -> [Key] {
        guard let kid else {
            let matching = keys.filter { $0.algorithm == algorithm }
            guard !matching.isEmpty else { throw .unknownKey(kid: nil, algorithm: algorithm) }
            return matching
        }
        let named = keys.filter { $0.keyID == kid }
        guard !named.isEmpty else { throw .unknownKey(kid: kid, algorithm: algorithm) }
        let matching = named.filter { $0.algorithm == algorithm }
        guard !matching.isEmpty else { throw .keyAlgorithmMismatch(kid: kid, algorithm: algorithm) }
        return matching
    }

    /// The key a JWK object describes; nil for a kind of key that is skipped.
    private static func key(_ jwk: JSONObject, index: Int) throws(ClientKeySetError) -> Key? {
        var kid: String?
        if let value = jwk["kid"] {
            guard let text = value.stringValue else { throw .missingMember(index: index, kid: nil, member: "kid (a string)") }
            kid = text
        }
        if let member = privateMembers.first(where: { jwk[$0] != nil }) {
            throw .privateMemberPresent(index: index, kid: kid, member: member)
        }
        guard let kty = jwk["kty"]?.stringValue else { throw .missingMember(index: index, kid: kid, member: "kty") }
        if let use = jwk["use"], use.stringValue != "sig" { return nil }
        if let ops = jwk["key_ops"], !(ops.arrayValue ?? []).contains(.string("verify")) { return nil }
        let algorithm: ClientAssertionAlgorithm
        switch kty {
        case "EC":
            guard let crv = jwk["crv"]?.stringValue else { throw .missingMember(index: index, kid: kid, member: "crv") }
            guard crv == "P-384" else { return nil }
            algorithm = .es384
        case "RSA":
            algorithm = .rs384
        default:
            return nil
        }
        if let alg = jwk["alg"], alg.stringValue != algorithm.rawValue { return nil }
        switch algorithm {
        case .es384:
            return Key(keyID: kid, algorithm: .es384, material: .p384(try p384Key(jwk, index: index, kid: kid)))
        case .rs384:
            return Key(keyID: kid, algorithm: .rs384, material: .rsa(try rsaKey(jwk, index: index, kid: kid)))
        }
    }

    private static func p384Key(_ jwk: JSONObject, index: Int, kid: String?) throws(ClientKeySetError) -> P384.Signing.PublicKey {
        let x = try bytes(jwk, "x", index: index, kid: kid)
        let y = try bytes(jwk, "y", index: index, kid: kid)
        guard x.count == 48, y.count == 48 else {
            throw .invalidKey(index: index, kid: kid, reason: "P-384 coordinates must be 48 bytes, got \(x.count) and \(y.count)")
        }
        do { return try P384.Signing.PublicKey(rawRepresentation: x + y) } catch {
            throw .invalidKey(index: index, kid: kid, reason: "the point is not on the P-384 curve")
        }
    }

    private static func rsaKey(_ jwk: JSONObject, index: Int, kid: String?) throws(ClientKeySetError) -> _RSA.Signing.PublicKey {
        let n = Array(try bytes(jwk, "n", index: index, kid: kid).drop(while: { $0 == 0 }))
        let e = Array(try bytes(jwk, "e", index: index, kid: kid).drop(while: { $0 == 0 }))
        let bits = n.first.map { n.count * 8 - $0.leadingZeroBitCount } ?? 0
        guard bits >= 2048 else { throw .rsaKeyTooSmall(index: index, kid: kid, bits: bits) }
        guard bits <= maximumRSABits else { throw .invalidKey(index: index, kid: kid, reason: "the modulus has \(bits) bits, more than \(maximumRSABits)") }
        guard n.last.map({ $0 & 1 == 1 }) == true else { throw .invalidKey(index: index, kid: kid, reason: "the modulus is even") }
        guard (1...4).contains(e.count), let last = e.last, last & 1 == 1, e != [1] else {
            throw .invalidKey(index: index, kid: kid, reason: "the public exponent must be an odd number from 3 to 2^32 − 1")
        }
        do { return try _RSA.Signing.PublicKey(n: n, e: e) } catch {
            throw .invalidKey(index: index, kid: kid, reason: "not an RSA public key (\(error))")
        }
    }

    private static func bytes(_ jwk: JSONObject, _ member: String, index: Int, kid: String?) throws(ClientKeySetError) -> [UInt8] {
        guard let text = jwk[member]?.stringValue else { throw .missingMember(index: index, kid: kid, member: member) }
        do { return try Base64URL.decode(text) } catch {
            throw .invalidKey(index: index, kid: kid, reason: "\(member) is not base64url (\(error))")
        }
    }
}
