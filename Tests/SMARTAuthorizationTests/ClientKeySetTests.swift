import ByteEncodings
import Crypto
import CryptoExtras
import SMARTAuthorization
import Testing

@Suite struct ClientKeySetTests {
    @Test func keepsP384AndRSASigningKeysAndSkipsOthers() throws {
        let p256 = P256.Signing.PrivateKey().publicKey.rawRepresentation
        let set = try ClientKeySet(json: TestJWT.jwks(
            TestJWT.jwk(TestKeys.ec.publicKey, kid: "ec-1"),
            try TestJWT.jwk(TestKeys.rsa.publicKey, kid: "rsa-1", extra: #","use":"sig","alg":"RS384""#),
            #"{"kty":"EC","crv":"P-256","kid":"p256","x":"\#(Base64URL.encode(p256.prefix(32)))","y":"\#(Base64URL.encode(p256.suffix(32)))"}"#,
            #"{"kty":"OKP","crv":"Ed25519","kid":"ed","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#,
            TestJWT.jwk(TestKeys.otherEC.publicKey, kid: "enc", extra: #","use":"enc""#),
            TestJWT.jwk(TestKeys.otherEC.publicKey, kid: "es256", extra: #","alg":"ES256""#),
            try TestJWT.jwk(TestKeys.otherRSA.publicKey, kid: "sign-only", extra: #","key_ops":["sign"]"#)
        ))
        #expect(set.keys.map(\.keyID) == ["ec-1", "rsa-1"])
        #expect(set.keys.map(\.algorithm) == [.es384, .rs384])
    }

    @Test(arguments: ClientKeySetTests.privateMembers)
    func privateKeysAreRefused(member: String) throws {
        let key = TestJWT.jwk(TestKeys.ec.publicKey, kid: "ec-1", extra: #","\#(member)":"AAAA""#)
        #expect(throws: ClientKeySetError.privateMemberPresent(index: 1, kid: "ec-1", member: member)) {
            try ClientKeySet(json: TestJWT.jwks(try TestJWT.jwk(TestKeys.rsa.publicKey), key))
        }
    }
    static let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    @Test func aRealPrivateJWKIsRefused() throws {
        let key = TestKeys.ec
        let d = Base64URL.encode(key.rawRepresentation)
        #expect(throws: ClientKeySetError.privateMemberPresent(index: 0, kid: "ec-1", member: "d")) {
            try ClientKeySet(json: TestJWT.jwks(TestJWT.jwk(key.publicKey, kid: "ec-1", extra: #","d":"\#(d)""#)))
        }
    }

    @Test func rsaKeysUnder2048BitsAreRefused() throws {
        // A real 1024-bit modulus: the most significant bit set, odd.
        var modulus = [UInt8](repeating: 0xA5, count: 128)
        modulus[0] = 0xC3
        let small = #"{"kty":"RSA","kid":"small","n":"\#(Base64URL.encode(modulus))","e":"AQAB"}"#
        #expect(throws: ClientKeySetError.rsaKeyTooSmall(index: 0, kid: "small", bits: 1024)) {
            try ClientKeySet(json: TestJWT.jwks(small))
        }
        // 2047 bits: one bit short.
        var short = [UInt8](repeating: 0xA5, count: 256)
        short[0] = 0x7F
        #expect(throws: ClientKeySetError.rsaKeyTooSmall(index: 0, kid: "short", bits: 2047)) {
            try ClientKeySet(json: TestJWT.jwks(#"{"kty":"RSA","kid":"short","n":"\#(Base64URL.encode(short))","e":"AQAB"}"#))
        }
    }

    @Test func malformedDocumentsAreTypedErrors() throws {
        let raw = Array(TestKeys.ec.publicKey.rawRepresentation)
        let x = Base64URL.encode(raw[0..<48])
        #expect(throws: ClientKeySetError.missingKeys) { try ClientKeySet(json: #"{"kty":"EC"}"#) }
        #expect(throws: ClientKeySetError.missingKeys) { try ClientKeySet(json: #"[]"#) }
        #expect(throws: ClientKeySetError.noUsableKeys) { try ClientKeySet(json: #"{"keys":[]}"#) }
        #expect(throws: ClientKeySetError.keyNotAnObject(index: 0)) { try ClientKeySet(json: #"{"keys":["x"]}"#) }
        #expect(throws: ClientKeySetError.missingMember(index: 0, kid: "a", member: "kty")) { try ClientKeySet(json: #"{"keys":[{"kid":"a"}]}"#) }
        #expect(throws: ClientKeySetError.missingMember(index: 0, kid: "a", member: "y")) {
            try ClientKeySet(json: #"{"keys":[{"kty":"EC","crv":"P-384","kid":"a","x":"\#(x)"}]}"#)
        }
        #expect(throws: ClientKeySetError.invalidKey(index: 0, kid: "a", reason: "P-384 coordinates must be 48 bytes, got 48 and 32")) {
            try ClientKeySet(json: #"{"keys":[{"kty":"EC","crv":"P-384","kid":"a","x":"\#(x)","y":"\#(Base64URL.encode(raw[0..<32]))"}]}"#)
        }
        #expect(throws: ClientKeySetError.invalidKey(index: 0, kid: "a", reason: "the point is not on the P-384 curve")) {
            try ClientKeySet(json: #"{"keys":[{"kty":"EC","crv":"P-384","kid":"a","x":"\#(x)","y":"\#(x)"}]}"#)
        }
        do {
            _ = try ClientKeySet(json: #"{"keys":[{"kty":"EC","crv":"P-384","kid":"a","x":"\#(x)=","y":"\#(x)"}]}"#)
            Issue.record("padded base64 was accepted")
        } catch {
            guard case .invalidKey(let index, let kid, let reason) = error else { Issue.record("unexpected \(error)"); return }
            #expect(index == 0 && kid == "a" && reason.hasPrefix("x is not base64url"))
        }
        #expect(throws: ClientKeySetError.self) { try ClientKeySet(json: "{") }
        #expect(throws: ClientKeySetError.tooLarge(bytes: ClientKeySet.maximumDocumentBytes + 1)) {
            try ClientKeySet(json: String(repeating: " ", count: ClientKeySet.maximumDocumentBytes + 1))
        }
    }

    @Test func rsaExponentsAndModuliAreChecked() throws {
        let n = Base64URL.encode(try TestKeys.rsa.publicKey.getKeyPrimitives().modulus)
        #expect(throws: ClientKeySetError.self) { try ClientKeySet(json: TestJWT.jwks(#"{"kty":"RSA","n":"\#(n)","e":"AQ"}"#)) }
        #expect(throws: ClientKeySetError.self) { try ClientKeySet(json: TestJWT.jwks(#"{"kty":"RSA","n":"\#(n)","e":"AAE"}"#)) }
        #expect(throws: ClientKeySetError.self) { try ClientKeySet(json: TestJWT.jwks(#"{"kty":"RSA","n":"\#(n)","e":"AQAA"}"#)) }
        // A leading zero octet in n is tolerated.
        let padded = Base64URL.encode([0] + (try TestKeys.rsa.publicKey.getKeyPrimitives().modulus))
        #expect(try ClientKeySet(json: TestJWT.jwks(#"{"kty":"RSA","n":"\#(padded)","e":"AQAB"}"#)).keys.count == 1)
    }
}
