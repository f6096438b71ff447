import ByteEncodings
import Crypto
import FHIR
import Foundation
import JOSE
import Testing

/// The one JWK type: what SMART Health Card issuers publish and what device keys are imported
/// from, validated strictly.
@Suite struct JSONWebKeyTests {
    /// RFC 7517 Appendix A.1 and A.2: an EC P-256 key, public and private.
    static let x = "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4"
    static let y = "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"
    static let d = "870MB6gfuTJ4HtUnUvYMyJpr5eUZNP4Bk43bVdj3eAE"

    static func key(_ members: [(String, String)]) throws -> JSONWebKey {
        let text = "{" + members.map { "\"\($0.0)\":\"\($0.1)\"" }.joined(separator: ",") + "}"
        return try JSONWebKey(data: Data(text.utf8))
    }

    static func ec(x: String = x, y: String = y, extra: [(String, String)] = []) throws -> JSONWebKey {
        try key([("kty", "EC"), ("crv", "P-256"), ("x", x), ("y", y)] + extra)
    }

    @Test func readsTheRFCExampleKeys() throws {
        let publicKey = try Self.ec().p256PublicKey()
        #expect(Base64URL.encode(publicKey.rawRepresentation.prefix(32)) == Self.x)
        let privateKey = try Self.ec(extra: [("d", Self.d)]).p256PrivateKey()
        #expect(privateKey.publicKey.rawRepresentation == publicKey.rawRepresentation)
    }

    /// RFC 7638: SHA-256 of the required members in lexicographic order, no whitespace.
    @Test func computesTheThumbprint() throws {
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(Self.x)","y":"\#(Self.y)"}"#
        let expected = Data(SHA256.hash(data: Data(canonical.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        // Extra members and member order do not change it.
        #expect(try Self.ec(extra: [("use", "enc"), ("kid", "1")]).thumbprint() == expected)
        #expect(try Self.key([("y", Self.y), ("x", Self.x), ("kty", "EC"), ("crv", "P-256")]).thumbprint() == expected)
        // A key made from a swift-crypto key writes exactly the thumbprint's input.
        let made = JSONWebKey(p256PublicKey: try Self.ec().p256PublicKey())
        #expect(JSONWriter.minifiedString(.object(made.json)) == canonical)
        #expect(try made.thumbprint() == expected)
    }

    @Test func refusesCoordinatesThatAreNotCanonicalBase64URLOf32Bytes() throws {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let last = alphabet.firstIndex(of: Self.x.last!)!
        let nonCanonical = String(Self.x.dropLast()) + String(alphabet[last + 1])
        let short = Base64URL.encode([UInt8](repeating: 7, count: 31))
        let long = Base64URL.encode([UInt8](repeating: 7, count: 33))
        for bad in [Self.x + "=", nonCanonical, "+" + Self.x.dropFirst(), " " + Self.x, short, long, ""] {
            #expect(throws: JWKError.self, "x = \(bad)") { try Self.ec(x: bad).p256PublicKey() }
        }
        #expect(throws: JWKError.pointNotOnCurve) { try Self.ec(y: Self.x).p256PublicKey() }
        #expect(throws: JWKError.missingMember("x or y")) { try Self.key([("kty", "EC"), ("crv", "P-256"), ("x", Self.x)]).p256PublicKey() }
        #expect(throws: JWKError.unsupportedKeyType("RSA")) { try Self.key([("kty", "RSA"), ("n", "AQAB"), ("e", "AQAB")]).p256PublicKey() }
        #expect(throws: JWKError.unsupportedCurve("P-384")) { try Self.key([("kty", "EC"), ("crv", "P-384"), ("x", Self.x), ("y", Self.y)]).p256PublicKey() }
        #expect(throws: JWKError.notAnObject) { try JSONWebKey(data: Data("[1]".utf8)) }
        #expect(throws: JWKError.self) { try JSONWebKey(data: Data("not json".utf8)) }
    }

    /// A trusted (public) key must not carry its private part; reading the public point of a
    /// private key, as issuing does, still works.
    @Test func refusesAPrivatePartWhereOnlyAPublicKeyBelongs() throws {
        let withPrivate = try Self.ec(extra: [("d", Self.d)])
        #expect(throws: JWKError.privateMemberPresent) { try withPrivate.p256PublicKeyWithoutPrivatePart() }
        #expect(try withPrivate.p256PublicKey().rawRepresentation == (try Self.ec().p256PublicKeyWithoutPrivatePart()).rawRepresentation)
        // Type and curve are judged first, as before the private part.
        #expect(throws: JWKError.unsupportedCurve("P-521")) {
            try Self.key([("kty", "EC"), ("crv", "P-521"), ("x", Self.x), ("y", Self.y), ("d", Self.d)]).p256PublicKeyWithoutPrivatePart()
        }
    }

    @Test func checksThePrivateScalarAgainstThePoint() throws {
        #expect(throws: JWKError.missingPrivateKey) { try Self.ec().p256PrivateKey() }
        let other = Base64URL.encode(P256.Signing.PrivateKey().rawRepresentation)
        #expect(throws: JWKError.invalidCoordinates("x and y do not belong to d")) { try Self.ec(extra: [("d", other)]).p256PrivateKey() }
        #expect(throws: JWKError.self) { try Self.ec(extra: [("d", Self.d + "=")]).p256PrivateKey() }
    }

    @Test func listsWhatASmartHealthCardSigningKeyLacks() throws {
        let key = P256.Signing.PrivateKey()
        let base = JSONWebKey(p256PublicKey: key.publicKey)
        let kid = try base.thumbprint()
        var good = base.json
        good["use"] = .string("sig")
        good["alg"] = .string("ES256")
        good["kid"] = .string(kid)
        #expect(JSONWebKey(json: good).signingKeyProblems().isEmpty)
        var bad = good
        bad["use"] = .string("enc")
        bad["kid"] = .string("other")
        bad["d"] = .string(Base64URL.encode(key.rawRepresentation))
        #expect(JSONWebKey(json: bad).signingKeyProblems() == [.wrongUse("enc"), .privateMemberPresent])
        bad["d"] = nil
        #expect(JSONWebKey(json: bad).signingKeyProblems() == [.wrongUse("enc")])
        bad["use"] = .string("sig")
        #expect(JSONWebKey(json: bad).signingKeyProblems() == [.kidMismatch(kid: "other", thumbprint: kid)])
        #expect(JSONWebKey(json: good).publicJWK.privateScalar == nil)
    }

    @Test func verifiesES256Signatures() throws {
        let key = P256.Signing.PrivateKey()
        let jwk = JSONWebKey(p256PublicKey: key.publicKey)
        let message = Array("header.payload".utf8)
        var signature = try ES256.sign(message, key: key)
        #expect(message.withUnsafeBytes { jwk.isValidES256Signature(signature, for: $0) })
        signature[10] ^= 1
        #expect(!message.withUnsafeBytes { jwk.isValidES256Signature(signature, for: $0) })
        #expect(!message.withUnsafeBytes { jwk.isValidES256Signature(Array(signature.prefix(63)), for: $0) })
    }
}
