import ByteEncodings
import Crypto
import CryptoExtras
import FHIR
import Foundation

/// A client's private key for private_key_jwt: ES384 (P-384) or RS384 (RSA ≥ 2048).
///
/// SMART's asymmetric client authentication lets a confidential client prove itself without a
/// shared secret the server could leak. The key is read from whatever the user has (a JWK, a
/// JWKS as the SMART spec's own examples ship, or an openssl PEM), checked once by signing and
/// verifying, and kept only in memory.
public struct ClientSigningKey: Sendable {
    /// ES384 for a P-384 key, RS384 for an RSA key.
    public let algorithm: ClientAssertionAlgorithm
    /// The `kid` put in the public JWKS and in every assertion's header: the `keyID` given,
    /// else the JWK's own `kid`, else (a PEM, a JWK without one) the key's RFC 7638 thumbprint,
    /// so the header always names the registered key.
    public let keyID: String?
    private let material: Material

    /// The private key itself.
    enum Material: Sendable {
        case p384(P384.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    /// The largest key file read, in bytes (a 8192-bit RSA JWK is under 8 KB).
    public static let maximumFileBytes = 64 * 1024
    /// The smallest RSA modulus accepted, in bits (SMART and RFC 7518 §3.3).
    public static let minimumRSABits = 2048
    /// How far ahead each assertion's `exp` is: the most ``ClientAssertion/verify(_:clientID:tokenEndpoint:keys:now:)``
    /// and SMART allow.
    public static let assertionLifetime: TimeInterval = ClientAssertion.maximumLifetime

    /// Reads a private JWK (EC P-384 with d, or RSA with d,p,q,dp,dq,qi) or a JWKS holding one
    /// private key, or a PEM (PKCS#8 "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY").
    /// `keyID` overrides/sets the kid (a PEM has none; the JWK's kid otherwise).
    ///
    /// A JWKS may also hold public keys (the SMART spec's example files pair each private key
    /// with its public twin); exactly one member with `d` must be there. An RSA JWK without
    /// `p` and `q` is accepted (the primes are recovered from `n`, `e`, `d`). A JWK whose `alg`,
    /// `use` or `key_ops` says it is not for ES384/RS384 signing is refused rather than
    /// repurposed. Encrypted PEMs, public keys, certificates, other curves and RSA keys under
    /// 2048 or over 8192 bits are `.unsupportedKey`; anything unparseable is `.unreadableKey`.
    public init(data: Data, keyID: String? = nil) throws(SMARTClientError) {
        guard data.count <= Self.maximumFileBytes else {
            throw .unreadableKey("the file is \(data.count) bytes, more than \(Self.maximumFileBytes)")
        }
        guard let text = String(validating: data, as: UTF8.self) else { throw .unreadableKey("not text (a DER file? convert it to PEM)") }
        let material: Material
        var fileKeyID: String?
        if text.contains("-----BEGIN ") {
            material = try Self.fromPEM(text)
        } else if let first = text.trimmingCharacters(in: .whitespacesAndNewlines).first, first == "{" || first == "[" {
            let jwk = try Self.privateJWK(data)
            fileKeyID = try Self.keyID(jwk)
            material = try Self.fromJWK(jwk)
        } else {
            throw .unreadableKey("neither a JWK, a JWKS nor a PEM private key")
        }
        try self.init(material: material, keyID: keyID ?? fileKeyID)
    }

    /// A signing key for a P-384 key already in memory (generated, or from a keystore).
    public init(p384 key: P384.Signing.PrivateKey, keyID: String? = nil) {
        material = .p384(key)
        algorithm = .es384
        self.keyID = keyID ?? Self.thumbprint(Self.publicMembers(.p384(key)))
    }

    /// A signing key for an RSA key already in memory; under 2048 or over 8192 bits is refused.
    public init(rsa key: _RSA.Signing.PrivateKey, keyID: String? = nil) throws(SMARTClientError) {
        try self.init(material: .rsa(key), keyID: keyID)
    }

    private init(material: Material, keyID: String?) throws(SMARTClientError) {
        if case .rsa(let key) = material {
            let bits = key.keySizeInBits
            guard bits >= Self.minimumRSABits else { throw .unsupportedKey("a \(bits)-bit RSA key; at least \(Self.minimumRSABits) bits are needed") }
            guard bits <= ClientKeySet.maximumRSABits else {
                throw .unsupportedKey("a \(bits)-bit RSA key; servers (this one included) accept at most \(ClientKeySet.maximumRSABits)")
            }
        }
        self.material = material
        switch material {
        case .p384: algorithm = .es384
        case .rsa: algorithm = .rs384
        }
        self.keyID = keyID ?? Self.thumbprint(Self.publicMembers(material))
        try selfTest()
    }

    /// The public JWKS (`{"keys":[…]}`) to register with a server, kid and alg set.
    ///
    /// One key: its public members only, then `kid`, `use` (`sig`) and `alg`; it reads back
    /// through ``ClientKeySet`` as the key that verifies ``assertion(clientID:tokenEndpoint:now:)``.
    public var publicJWKS: String {
        JSONWriter.minifiedString(.object(JSONObject([JSONMember("keys", .array([.object(publicJWK)]))])))
    }

    /// The public JWK alone, for servers that register one key rather than a set.
    public var publicJWK: JSONObject {
        var members = Self.publicMembers(material)
        if let keyID { members.append(JSONMember("kid", .string(keyID))) }
        members.append(JSONMember("use", .string("sig")))
        members.append(JSONMember("alg", .string(algorithm.rawValue)))
        return JSONObject(members)
    }

    /// A client assertion: header {alg, typ:"JWT", kid}, claims iss=sub=clientID,
    /// aud=tokenEndpoint, exp=now+300 (max allowed by our own verifier), jti = 32 random bytes base64url.
    /// It must verify with ClientAssertion.verify(... keys: ClientKeySet(json: publicJWKS) ...).
    ///
    /// `now` is taken in whole seconds, rounded down, so `exp` is never past the verifier's
    /// limit; `iat` (that second) is added, as many servers expect it. `aud` is the token
    /// endpoint's `absoluteString`, which must be exactly the URL the server publishes.
    public func assertion(clientID: String, tokenEndpoint: URL, now: Date) throws(SMARTClientError) -> String {
        let issued = Int(now.timeIntervalSince1970.rounded(.down))
        var header = [JSONMember("alg", .string(algorithm.rawValue)), JSONMember("typ", .string("JWT"))]
        if let keyID { header.append(JSONMember("kid", .string(keyID))) }
        let claims = JSONObject([
            JSONMember("iss", .string(clientID)),
            JSONMember("sub", .string(clientID)),
            JSONMember("aud", .string(tokenEndpoint.absoluteString)),
            JSONMember("exp", .number(JSONNumber(issued + Int(Self.assertionLifetime)))),
            JSONMember("iat", .number(JSONNumber(issued))),
            JSONMember("jti", .string(AuthorizationSecrets.randomBase64URL())),
        ])
        let signingInput = Base64URL.encode(JSONWriter.minified(.object(JSONObject(header)))) + "."
            + Base64URL.encode(JSONWriter.minified(.object(claims)))
        return signingInput + "." + Base64URL.encode(try sign(Array(signingInput.utf8)))
    }

    /// The JWS signature of `message`: raw r‖s for ES384, PKCS #1 v1.5 over SHA-384 for RS384.
    private func sign(_ message: [UInt8]) throws(SMARTClientError) -> [UInt8] {
        do {
            switch material {
            case .p384(let key): return Array(try key.signature(for: message).rawRepresentation)
            case .rsa(let key): return Array(try key.signature(for: SHA384.hash(data: message), padding: .insecurePKCS1v1_5).rawRepresentation)
            }
        } catch {
            throw .unreadableKey("signing failed: \(error)")
        }
    }

    /// Signs and verifies a fixed message, so a key whose parts disagree (a JWK's `x` that is not
    /// `d`'s point, RSA primes that are not `n`'s) is refused when read, not at the token endpoint.
    private func selfTest() throws(SMARTClientError) {
        let message = Array("ClientSigningKey self-test".utf8)
        let signature = try sign(message)
        let valid: Bool
        switch material {
        case .p384(let key):
            valid = (try? P384.Signing.ECDSASignature(rawRepresentation: signature)).map { key.publicKey.isValidSignature($0, for: message) } ?? false
        case .rsa(let key):
            valid = key.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA384.hash(data: message), padding: .insecurePKCS1v1_5
            )
        }
        guard valid else { throw .unreadableKey("the key's parts do not form one key (a signature did not verify)") }
    }

    // MARK: - Public members and thumbprint

    /// The RFC 7638 required members, in lexicographic order (which is also the thumbprint's order).
    private static func publicMembers(_ material: Material) -> [JSONMember] {
        switch material {
        case .p384(let key):
            let raw = Array(key.publicKey.rawRepresentation)
            return [
                JSONMember("crv", .string("P-384")), JSONMember("kty", .string("EC")),
                JSONMember("x", .string(Base64URL.encode(raw[0..<48]))), JSONMember("y", .string(Base64URL.encode(raw[48..<96]))),
            ]
        case .rsa(let key):
            let primitives = try? key.publicKey.getKeyPrimitives()
            let n = Array(primitives?.modulus ?? Data()).drop(while: { $0 == 0 })
            let e = Array(primitives?.publicExponent ?? Data()).drop(while: { $0 == 0 })
            return [
                JSONMember("e", .string(Base64URL.encode(e))), JSONMember("kty", .string("RSA")), JSONMember("n", .string(Base64URL.encode(n))),
            ]
        }
    }

    /// base64url(SHA-256(minified required members)): RFC 7638 §3.
    private static func thumbprint(_ members: [JSONMember]) -> String {
        Base64URL.encode(Array(SHA256.hash(data: JSONWriter.minified(.object(JSONObject(members))))))
    }

    // MARK: - JWK

    /// The one private JWK of a JWK or JWKS document.
    private static func privateJWK(_ data: Data) throws(SMARTClientError) -> JSONObject {
        let value: JSONValue
        do { value = try ClientJSON.value(data) } catch { throw .unreadableKey(error.description) }
        guard let object = value.objectValue else { throw .unreadableKey("the JSON is not an object") }
        guard let keys = object["keys"] else { return object }
        guard let list = keys.arrayValue else { throw .unreadableKey("keys is not an array") }
        let privateKeys = list.compactMap(\.objectValue).filter { $0["d"] != nil }
        switch privateKeys.count {
        case 0: throw .unsupportedKey("the key set holds public keys only; the private key (with d) is needed")
        case 1: return privateKeys[0]
        default: throw .unsupportedKey("the key set holds \(privateKeys.count) private keys; give a file with one")
        }
    }

    private static func keyID(_ jwk: JSONObject) throws(SMARTClientError) -> String? {
        guard let value = jwk["kid"] else { return nil }
        guard let text = value.stringValue else { throw .unreadableKey("kid is not a string") }
        return text.isEmpty ? nil : text
    }

    private static func fromJWK(_ jwk: JSONObject) throws(SMARTClientError) -> Material {
        guard let kty = jwk["kty"]?.stringValue else { throw .unreadableKey("the JWK has no kty") }
        if let use = jwk["use"], use.stringValue != "sig" {
            throw .unsupportedKey("use is \(JSONWriter.minifiedString(use)), not \"sig\"")
        }
        if let ops = jwk["key_ops"], !(ops.arrayValue ?? []).contains(.string("sign")) {
            throw .unsupportedKey("key_ops \(JSONWriter.minifiedString(ops)) does not include \"sign\"")
        }
        switch kty {
        case "EC":
            guard let crv = jwk["crv"]?.stringValue else { throw .unreadableKey("the EC JWK has no crv") }
            guard crv == "P-384" else { throw .unsupportedKey("an EC \(crv) key; ES384 needs P-384") }
            try checkAlgorithm(jwk, .es384)
            guard jwk["d"] != nil else { throw .unsupportedKey("a public key only; the private key (d) is needed") }
            let d = try bytes(jwk, "d")
            guard d.count == 48 else { throw .unreadableKey("d is \(d.count) bytes; a P-384 scalar is 48") }
            let key: P384.Signing.PrivateKey
            do { key = try P384.Signing.PrivateKey(rawRepresentation: d) } catch { throw .unreadableKey("d is not a P-384 private scalar") }
            if jwk["x"] != nil || jwk["y"] != nil {
                let point = try bytes(jwk, "x") + bytes(jwk, "y")
                guard point == Array(key.publicKey.rawRepresentation) else { throw .unreadableKey("x and y are not the public point of d") }
            }
            return .p384(key)
        case "RSA":
            try checkAlgorithm(jwk, .rs384)
            guard jwk["d"] != nil else { throw .unsupportedKey("a public key only; the private key (d) is needed") }
            guard jwk["oth"] == nil else { throw .unsupportedKey("a multi-prime RSA key (oth)") }
            let n = Array(try bytes(jwk, "n").drop(while: { $0 == 0 }))
            let bits = n.first.map { n.count * 8 - $0.leadingZeroBitCount } ?? 0
            guard bits >= minimumRSABits else { throw .unsupportedKey("a \(bits)-bit RSA key; at least \(minimumRSABits) bits are needed") }
            guard bits <= ClientKeySet.maximumRSABits else {
                throw .unsupportedKey("a \(bits)-bit RSA key; servers (this one included) accept at most \(ClientKeySet.maximumRSABits)")
            }
            let e = try bytes(jwk, "e"), d = try bytes(jwk, "d")
            do {
                if jwk["p"] != nil || jwk["q"] != nil {
                    return .rsa(try _RSA.Signing.PrivateKey(n: n, e: e, d: d, p: try bytes(jwk, "p"), q: try bytes(jwk, "q")))
                }
                return .rsa(try _RSA.Signing.PrivateKey._createFromNumbers(n: n, e: e, d: d))
            } catch let error as SMARTClientError {
                throw error
            } catch {
                throw .unreadableKey("n, e, d, p and q do not form an RSA private key (\(error))")
            }
        default:
            throw .unsupportedKey("kty \(kty.debugDescription); ES384 needs an EC P-384 key and RS384 an RSA key")
        }
    }

    private static func checkAlgorithm(_ jwk: JSONObject, _ expected: ClientAssertionAlgorithm) throws(SMARTClientError) {
        guard let alg = jwk["alg"] else { return }
        guard alg.stringValue == expected.rawValue else {
            throw .unsupportedKey("the JWK is for alg \(JSONWriter.minifiedString(alg)); this key type signs \(expected.rawValue)")
        }
    }

    private static func bytes(_ jwk: JSONObject, _ member: String) throws(SMARTClientError) -> [UInt8] {
        guard let text = jwk[member]?.stringValue else { throw .unreadableKey("the JWK has no \(member) (a base64url string)") }
        do { return try Base64URL.decode(text) } catch { throw .unreadableKey("\(member) is not base64url: \(error)") }
    }

    // MARK: - PEM

    private static let privateLabels: Set<String> = ["PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY", "ENCRYPTED PRIVATE KEY"]

    private static func fromPEM(_ text: String) throws(SMARTClientError) -> Material {
        let blocks = PEMBlock.blocks(in: text)
        guard let block = blocks.first(where: { privateLabels.contains($0.label) }) else {
            if let other = blocks.first {
                throw .unsupportedKey("the PEM holds a \(other.label), not a private key")
            }
            throw .unreadableKey("no complete -----BEGIN …----- / -----END …----- block")
        }
        switch block.label {
        case "ENCRYPTED PRIVATE KEY":
            throw .unsupportedKey("the private key is encrypted; decrypt it first (openssl pkey -in KEY -out PLAIN.pem)")
        case "EC PRIVATE KEY":
            if let key = try? P384.Signing.PrivateKey(pemRepresentation: block.text) { return .p384(key) }
            throw otherKeyError(block)
        case "RSA PRIVATE KEY":
            if let key = try rsa(block) { return .rsa(key) }
            throw otherKeyError(block)
        default:
            if let key = try? P384.Signing.PrivateKey(pemRepresentation: block.text) { return .p384(key) }
            if let key = try rsa(block) { return .rsa(key) }
            throw otherKeyError(block)
        }
    }

    /// An RSA key of at least 1024 bits (so a short one is named as such), checked for size; nil when not RSA.
    private static func rsa(_ block: PEMBlock) throws(SMARTClientError) -> _RSA.Signing.PrivateKey? {
        guard let key = try? _RSA.Signing.PrivateKey(unsafePEMRepresentation: block.text) else { return nil }
        let bits = key.keySizeInBits
        guard bits >= minimumRSABits else { throw .unsupportedKey("a \(bits)-bit RSA key; at least \(minimumRSABits) bits are needed") }
        return key
    }

    /// Names a key that is readable but not usable, or says the block is unreadable.
    private static func otherKeyError(_ block: PEMBlock) -> SMARTClientError {
        if (try? P256.Signing.PrivateKey(pemRepresentation: block.text)) != nil { return .unsupportedKey("an EC P-256 key; ES384 needs P-384") }
        if (try? P521.Signing.PrivateKey(pemRepresentation: block.text)) != nil { return .unsupportedKey("an EC P-521 key; ES384 needs P-384") }
        if block.label == "PRIVATE KEY", (try? Curve25519.Signing.PrivateKey(pemRepresentation: block.text)) != nil {
            return .unsupportedKey("an Ed25519 key; SMART asks for ES384 or RS384")
        }
        return .unreadableKey("the \(block.label) block is not a P-384 EC or RSA (\(minimumRSABits) bits or more) private key")
    }
}
