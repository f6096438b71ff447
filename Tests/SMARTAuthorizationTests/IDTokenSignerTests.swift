import ByteEncodings
import Crypto
import FHIR
import Foundation
import JOSE
import SMARTAuthorization
import Testing
import TestSupport

@Suite struct IDTokenSignerTests {
    static let seed = Data((0..<32).map { UInt8($0) })
    static let claims = IDTokenClaims(
        issuer: "http://127.0.0.1:8080", subject: "person-0123456789abcdef0123456789abcdef", audience: "app-123",
        expiresAt: Date(timeIntervalSince1970: 1_700_003_600.9), issuedAt: Date(timeIntervalSince1970: 1_700_000_000),
        fhirUser: "http://127.0.0.1:8080/fhir/Patient/person-0123456789abcdef0123456789abcdef", nonce: "n-0S6_WzA2Mj"
    )

    struct Parts {
        var header: JSONObject
        var claims: JSONObject
        var signingInput: [UInt8]
        var signature: [UInt8]
    }

    static func split(_ jwt: String) throws -> Parts {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        let header = try #require(try JSONReader().read(Base64URL.decode(parts[0])).objectValue)
        let claims = try #require(try JSONReader().read(Base64URL.decode(parts[1])).objectValue)
        return Parts(header: header, claims: claims, signingInput: Array("\(parts[0]).\(parts[1])".utf8), signature: try Base64URL.decode(parts[2]))
    }

    @Test func tokensVerifyWithThePublishedJWKS() throws {
        let signer = try IDTokenSigner(seed: Self.seed)
        let token = try signer.sign(Self.claims)
        let parts = try Self.split(token)
        #expect(parts.header.keys == ["alg", "typ", "kid"])
        #expect(parts.header.string("alg") == "ES256" && parts.header.string("typ") == "JWT")

        // The JWKS as an app reads it from /.well-known/jwks.json.
        let set = try JWKSet(data: Data(signer.jwksJSON.utf8))
        let kid = try #require(parts.header.string("kid"))
        let key = try #require(set.keys(withID: kid).first)
        #expect(key.privateScalar == nil && key.use == "sig" && key.algorithm == "ES256")
        #expect(try key.thumbprint() == kid)
        let publicKey = try key.p256PublicKeyWithoutPrivatePart()
        #expect(ES256.isValid(signature: parts.signature, message: parts.signingInput, key: publicKey))
        #expect(parts.signingInput.withUnsafeBytes { key.isValidES256Signature(parts.signature, for: $0) })

        #expect(parts.claims.keys == ["iss", "sub", "aud", "exp", "iat", "fhirUser", "nonce"])
        #expect(parts.claims.string("iss") == Self.claims.issuer)
        #expect(parts.claims.string("sub") == Self.claims.subject)
        #expect(parts.claims.string("aud") == "app-123")
        #expect(parts.claims["exp"]?.numberValue?.text == "1700003600")
        #expect(parts.claims["iat"]?.numberValue?.text == "1700000000")
        #expect(parts.claims.string("fhirUser") == Self.claims.fhirUser)
        #expect(parts.claims.string("nonce") == "n-0S6_WzA2Mj")

        // Tampering breaks it.
        var forged = parts.signingInput
        forged[forged.count - 2] ^= 1
        #expect(!ES256.isValid(signature: parts.signature, message: forged, key: publicKey))
    }

    @Test func optionalClaimsAreLeftOut() throws {
        var claims = Self.claims
        claims.fhirUser = nil
        claims.nonce = nil
        let parts = try Self.split(try IDTokenSigner(seed: Self.seed).sign(claims))
        #expect(parts.claims.keys == ["iss", "sub", "aud", "exp", "iat"])
    }

    @Test func theKeyIsDerivedFromTheSeedAlone() throws {
        let a = try IDTokenSigner(seed: Self.seed)
        let b = try IDTokenSigner(seed: Self.seed)
        let other = try IDTokenSigner(seed: Data(repeating: 7, count: 48))
        #expect(a.keyID == b.keyID && a.jwksJSON == b.jwksJSON)
        #expect(a.publicKey.rawRepresentation == b.publicKey.rawRepresentation)
        #expect(other.keyID != a.keyID)
        // The derivation is HKDF-SHA256 of the seed with the fixed label, no salt.
        let expected = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Self.seed), info: Data(IDTokenSigner.derivationLabel.utf8), outputByteCount: 32)
        let key = try expected.withUnsafeBytes { try P256.Signing.PrivateKey(rawRepresentation: $0) }
        #expect(key.publicKey.rawRepresentation == a.publicKey.rawRepresentation)
        // A token by one verifies only under its own key.
        let parts = try Self.split(try a.sign(Self.claims))
        #expect(!ES256.isValid(signature: parts.signature, message: parts.signingInput, key: other.publicKey))
    }

    @Test func theJWKSHoldsOnlyThePublicKey() throws {
        let signer = try IDTokenSigner(seed: Self.seed)
        let json = try JSONReader().read(signer.jwksJSON)
        let keys = try #require(json["keys"]?.arrayValue)
        #expect(keys.count == 1)
        #expect(keys[0].objectValue?.keys == ["crv", "kty", "x", "y", "kid", "use", "alg"])
        #expect(!signer.jwksJSON.contains(#""d""#))
    }

    @Test func shortSeedsAreRefused() {
        #expect(throws: IDTokenError.seedTooShort(bytes: 31)) { try IDTokenSigner(seed: Data(count: 31)) }
        #expect(throws: IDTokenError.seedTooShort(bytes: 0)) { try IDTokenSigner(seed: Data()) }
    }

    /// The real `openssl` checks an id token with the key from the published JWKS.
    @Test func openSSLVerifiesTheToken() throws {
        let signer = try IDTokenSigner(seed: Self.seed)
        let parts = try Self.split(try signer.sign(Self.claims))
        let key = try #require(try JWKSet(data: Data(signer.jwksJSON.utf8)).keys.first)
        let x = try Base64URL.decode(try #require(key.x)), y = try Base64URL.decode(try #require(key.y))
        // SubjectPublicKeyInfo for an uncompressed P-256 point.
        let prefix: [UInt8] = [
            0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07,
            0x03, 0x42, 0x00, 0x04,
        ]
        let openssl = try OpenSSLRunner()
        try openssl.write("pub.der", prefix + x + y)
        try openssl.runChecked(["pkey", "-pubin", "-inform", "DER", "-in", "pub.der", "-out", "pub.pem"])
        try openssl.write("input.txt", parts.signingInput)
        try openssl.write("sig.der", ECDSADER.der(fromRaw: parts.signature))
        let good = try openssl.run(["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig.der", "input.txt"])
        #expect(good.status == 0 && good.stdout.contains("Verified OK"), "\(good.stderr)")
        var tampered = parts.signingInput
        tampered[0] ^= 1
        try openssl.write("input.txt", tampered)
        let bad = try openssl.run(["dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig.der", "input.txt"])
        #expect(bad.status != 0)
    }
}
