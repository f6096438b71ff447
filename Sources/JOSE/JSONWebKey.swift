import ByteEncodings
import Crypto
import FHIR
import Foundation
import Synchronization

/// A JSON Web Key (RFC 7517) for EC P-256: SMART Health Card issuer keys (ES256, RFC 7518) and
/// the device keys that sample signatures are checked against.
///
/// The key keeps its JSON as read, member order included, so a published key set is served back
/// byte for byte and unknown members survive. Validation is strict: coordinates must be canonical
/// unpadded base64url of exactly 32 bytes and name a point on the curve.
public struct JSONWebKey: Sendable {
    /// The key's JSON, member order kept.
    public let json: JSONObject

    /// `kty`, `crv`, `x`, `y`, `kid`, `use`, `alg`.
    public var keyType: String? { json.string("kty") }
    public var curve: String? { json.string("crv") }
    public var x: String? { json.string("x") }
    public var y: String? { json.string("y") }
    public var keyID: String? { json.string("kid") }
    public var use: String? { json.string("use") }
    public var algorithm: String? { json.string("alg") }
    /// The private member `d`, present only in private keys.
    public var privateScalar: String? { json.string("d") }
    /// `x5c`: standard-base64 DER certificates, leaf first.
    public var certificateChain: [String]? { json["x5c"]?.arrayValue?.compactMap(\.stringValue) }
    /// `crlVersion`: present when the issuer publishes a revocation list for this key.
    public var crlVersion: Int? { json["crlVersion"]?.numberValue?.intValue }

    private let memo = KeyMemo()

    /// Wraps a key object.
    public init(json: JSONObject) { self.json = json }

    /// The public JWK of a P-256 key: `crv`, `kty`, `x`, `y` in the lexicographic order of
    /// RFC 7638, so its minified JSON is also the input of its thumbprint.
    public init(p256PublicKey key: P256.Signing.PublicKey) {
        let raw = Array(key.rawRepresentation)
        self.init(json: JSONObject([
            JSONMember("crv", .string("P-256")), JSONMember("kty", .string("EC")),
            JSONMember("x", .string(Base64URL.encode(raw[0..<32]))), JSONMember("y", .string(Base64URL.encode(raw[32..<64]))),
        ]))
    }

    /// Reads a key from JSON text.
    public init(data: Data) throws(JWKError) {
        let value: JSONValue
        do { value = try JSONReader().read(data) } catch { throw .notJSON(error.description) }
        guard let o = value.objectValue else { throw .notAnObject }
        self.json = o
    }

    /// ``signingKeyProblems()``, computed once per key value (a cached key set is verified against
    /// thousands of cards).
    public func cachedSigningKeyProblems() -> [JWKError] {
        if let known = memo.problems { return known }
        let p = signingKeyProblems()
        memo.problems = p
        return p
    }

    /// The RFC 7638 thumbprint: base64url SHA-256 of `{"crv","kty","x","y"}` in that order.
    public func thumbprint() throws(JWKError) -> String {
        guard keyType == "EC" else { throw .unsupportedKeyType(keyType ?? "none") }
        guard let crv = curve, let x, let y else { throw .missingMember("crv, x or y") }
        var canonical: [UInt8] = []
        canonical.reserveCapacity(160)
        canonical += Array(#"{"crv":"#.utf8)
        JSONWriter.writeString(crv, to: &canonical)
        canonical += Array(#","kty":"EC","x":"#.utf8)
        JSONWriter.writeString(x, to: &canonical)
        canonical += Array(#","y":"#.utf8)
        JSONWriter.writeString(y, to: &canonical)
        canonical.append(UInt8(ascii: "}"))
        return Base64URL.encode(Array(SHA256.hash(data: canonical)))
    }

    /// The P-256 public key (the point is checked to be on the curve).
    public func p256PublicKey() throws(JWKError) -> P256.Signing.PublicKey {
        if let cached = memo.publicKey { return cached }
        let key = try makeP256PublicKey()
        memo.publicKey = key
        return key
    }

    private func makeP256PublicKey() throws(JWKError) -> P256.Signing.PublicKey {
        guard keyType == "EC" else { throw .unsupportedKeyType(keyType ?? "none") }
        guard curve == "P-256" else { throw .unsupportedCurve(curve ?? "none") }
        guard let x, let y else { throw .missingMember("x or y") }
        let xb: [UInt8]
        let yb: [UInt8]
        do {
            xb = try Base64URL.decode(x)
            yb = try Base64URL.decode(y)
        } catch { throw .invalidCoordinates("not base64url") }
        guard xb.count == 32, yb.count == 32 else { throw .invalidCoordinates("coordinates must be 32 bytes, got \(xb.count) and \(yb.count)") }
        do { return try P256.Signing.PublicKey(rawRepresentation: xb + yb) } catch {
            throw .pointNotOnCurve
        }
    }

    /// The P-256 public key of a key that must be public only, such as a trusted device key: a
    /// key carrying its private member `d` is refused before its point is read, so a private key
    /// file given by mistake is neither trusted nor kept.
    public func p256PublicKeyWithoutPrivatePart() throws(JWKError) -> P256.Signing.PublicKey {
        guard keyType == "EC" else { throw .unsupportedKeyType(keyType ?? "none") }
        guard curve == "P-256" else { throw .unsupportedCurve(curve ?? "none") }
        guard privateScalar == nil else { throw .privateMemberPresent }
        return try p256PublicKey()
    }

    /// Whether `signature` (64 bytes r‖s) is a valid ES256 signature of `message` by this key.
    ///
    /// A key that keeps being used (an issuer's key in a verifier) is prepared once for
    /// ``PrecomputedP256Key``'s faster check, which gives the same answers; until then, and for
    /// keys used only a few times, the check is swift-crypto's.
    public func isValidES256Signature(_ signature: [UInt8], for message: UnsafeRawBufferPointer) -> Bool {
        guard let key = try? p256PublicKey() else { return false }
        if let prepared = memo.preparedKey(key) {
            return signature.withUnsafeBytes { prepared.isValidSignature($0, for: message) }
        }
        return ES256.isValid(signature: signature, message: message, key: key)
    }

    /// Whether this key has been prepared for fast verification (see ``isValidES256Signature(_:for:)``).
    public var isPreparedForVerification: Bool { memo.isPrepared }

    /// The P-256 private key, for issuing.
    public func p256PrivateKey() throws(JWKError) -> P256.Signing.PrivateKey {
        guard keyType == "EC" else { throw .unsupportedKeyType(keyType ?? "none") }
        guard curve == "P-256" else { throw .unsupportedCurve(curve ?? "none") }
        guard let d = privateScalar else { throw .missingPrivateKey }
        let db: [UInt8]
        do { db = try Base64URL.decode(d) } catch { throw .invalidCoordinates("d is not base64url") }
        guard db.count == 32 else { throw .invalidCoordinates("d must be 32 bytes") }
        let key: P256.Signing.PrivateKey
        do { key = try P256.Signing.PrivateKey(rawRepresentation: db) } catch { throw .invalidCoordinates("d is not a valid P-256 scalar") }
        if let pub = try? p256PublicKey(), pub.rawRepresentation != key.publicKey.rawRepresentation {
            throw .invalidCoordinates("x and y do not belong to d")
        }
        return key
    }

    /// Every reason this key is not a valid SMART Health Card signing key (empty when it is).
    ///
    /// The spec requires `kty` EC, `crv` P-256, `use` sig, `alg` ES256, a `kid` equal to the
    /// RFC 7638 thumbprint, and no private member `d`.
    public func signingKeyProblems() -> [JWKError] {
        var problems: [JWKError] = []
        if keyType != "EC" { problems.append(.unsupportedKeyType(keyType ?? "none")) }
        if curve != "P-256" { problems.append(.unsupportedCurve(curve ?? "none")) }
        if use != "sig" { problems.append(.wrongUse(use)) }
        if algorithm != "ES256" { problems.append(.wrongAlgorithm(algorithm)) }
        if privateScalar != nil { problems.append(.privateMemberPresent) }
        if problems.isEmpty {
            do {
                _ = try p256PublicKey()
                let t = try thumbprint()
                if keyID != t { problems.append(.kidMismatch(kid: keyID, thumbprint: t)) }
            } catch {
                problems.append(error)
            }
        }
        return problems
    }

    /// This key without its private member, for publishing.
    public var publicJWK: JSONWebKey {
        JSONWebKey(json: JSONObject(json.members.filter { $0.key != "d" }))
    }
}

/// A JSON Web Key Set.
public struct JWKSet: Sendable {
    /// The keys, in order.
    public let keys: [JSONWebKey]

    /// Makes a set from keys already made; their order is kept.
    public init(keys: [JSONWebKey]) { self.keys = keys }

    /// Reads `{"keys":[…]}`.
    public init(data: Data) throws(JWKError) {
        let value: JSONValue
        do { value = try JSONReader(limits: JSONLimits(maxDocumentBytes: 4 << 20, maxDepth: 16, maxStringBytes: 1 << 20, maxContainerElements: 10_000)).read(data) } catch {
            throw .notJSON(error.description)
        }
        try self.init(json: value)
    }

    /// Reads a parsed `{"keys":[…]}`.
    public init(json value: JSONValue) throws(JWKError) {
        guard let keys = value["keys"]?.arrayValue else { throw .missingMember("keys") }
        self.keys = keys.compactMap { $0.objectValue.map(JSONWebKey.init(json:)) }
    }

    /// Every key with this `kid` (the same key can appear once per trust framework, differing in `x5c`).
    public func keys(withID kid: String) -> [JSONWebKey] { keys.filter { $0.keyID == kid } }

    /// The set's JSON.
    public var json: JSONValue { .object(JSONObject([JSONMember("keys", .array(keys.map { .object($0.json) }))])) }
}

/// Why a key cannot be used.
public enum JWKError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not JSON (the reader's message).
    case notJSON(String)
    /// The JSON is not an object.
    case notAnObject
    /// A required member is absent (or not a string): its name.
    case missingMember(String)
    /// `kty` is not `EC` (or is missing: "none").
    case unsupportedKeyType(String)
    /// `crv` is not `P-256` (or is missing: "none").
    case unsupportedCurve(String)
    /// `use` is not `sig`, which a SMART Health Card signing key needs.
    case wrongUse(String?)
    /// `alg` is not `ES256`, which a SMART Health Card signing key needs.
    case wrongAlgorithm(String?)
    /// The private member `d` is present where only a public key belongs.
    case privateMemberPresent
    /// A private key is needed and `d` is absent.
    case missingPrivateKey
    /// A coordinate or `d` is not canonical base64url, or not 32 bytes: what is wrong.
    case invalidCoordinates(String)
    /// `x` and `y` are well formed but name no point on P-256.
    case pointNotOnCurve
    /// `kid` is not the key's RFC 7638 thumbprint.
    case kidMismatch(kid: String?, thumbprint: String)

    public var description: String {
        switch self {
        case .notJSON(let m): return "key is not JSON: \(m)"
        case .notAnObject: return "key is not a JSON object"
        case .missingMember(let m): return "key has no \(m)"
        case .unsupportedKeyType(let t): return "key type \(t) is not EC"
        case .unsupportedCurve(let c): return "curve \(c) is not P-256"
        case .wrongUse(let u): return "key use is \(u.map { "\"\($0)\"" } ?? "missing"), not \"sig\""
        case .wrongAlgorithm(let a): return "key alg is \(a.map { "\"\($0)\"" } ?? "missing"), not \"ES256\""
        case .privateMemberPresent: return "a published key must not contain the private member d"
        case .missingPrivateKey: return "the key has no private part (d)"
        case .invalidCoordinates(let m): return "invalid key: \(m)"
        case .pointNotOnCurve: return "invalid key: the point is not on the P-256 curve"
        case .kidMismatch(let kid, let t): return "kid \(kid ?? "(missing)") is not the key's RFC 7638 thumbprint \(t)"
        }
    }
}

/// Results derived from a key's JSON, kept so copies of the key share them.
final class KeyMemo: Sendable {
    private let state = Mutex<(P256.Signing.PublicKey?, [JWKError]?)>((nil, nil))
    private let verification = Mutex<VerificationUse>(VerificationUse())

    private struct VerificationUse {
        var uses = 0
        var preparing = false
        var prepared: PrecomputedP256Key?
    }

    /// The key prepared for fast verification once it has verified ``PreparedKeyBudget/threshold``
    /// signatures (a key in use in a verifier); nil before that, or when the process already holds
    /// as many prepared keys as ``PreparedKeyBudget`` allows.
    func preparedKey(_ key: P256.Signing.PublicKey) -> PrecomputedP256Key? {
        let prepare: Bool = verification.withLock { use in
            if use.prepared != nil || use.preparing { return false }
            use.uses += 1
            guard use.uses >= PreparedKeyBudget.threshold, PreparedKeyBudget.reserve() else { return false }
            use.preparing = true
            return true
        }
        if prepare {
            let prepared = PrecomputedP256Key(key)
            verification.withLock {
                $0.prepared = prepared
                $0.preparing = false
            }
            return prepared
        }
        return verification.withLock { $0.prepared }
    }

    var isPrepared: Bool { verification.withLock { $0.prepared != nil } }

    deinit {
        if verification.withLock({ $0.prepared != nil || $0.preparing }) { PreparedKeyBudget.release() }
    }

    var publicKey: P256.Signing.PublicKey? {
        get { state.withLock { $0.0 } }
        set { state.withLock { $0.0 = newValue } }
    }

    var problems: [JWKError]? {
        get { state.withLock { $0.1 } }
        set { state.withLock { $0.1 = newValue } }
    }
}
