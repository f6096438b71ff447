import ByteEncodings
import Foundation
import SMARTAuthorization
import Testing
import TestSupport

/// Client assertions made by the real `openssl` command: keys generated and signatures made
/// outside swift-crypto, the JWKS written from openssl's own output.
@Suite struct ClientAssertionOpenSSLTests {
    let openssl: OpenSSLRunner
    init() throws { openssl = try OpenSSLRunner() }

    /// Signs `input` with `openssl dgst -sha384 -sign key.pem` and returns the signature bytes.
    func sign(_ input: String, key: String) throws -> [UInt8] {
        try openssl.write("input.txt", input)
        try openssl.runChecked(["dgst", "-sha384", "-sign", key, "-out", "sig.bin", "input.txt"])
        return try openssl.read("sig.bin")
    }

    /// The JWK of an openssl P-384 key, from its SubjectPublicKeyInfo (the point is the last 97 bytes: 04‖x‖y).
    func ecJWK(_ key: String, kid: String) throws -> String {
        try openssl.runChecked(["pkey", "-in", key, "-pubout", "-outform", "DER", "-out", "pub.der"])
        let spki = try openssl.read("pub.der")
        let point = Array(spki.suffix(97))
        #expect(point[0] == 0x04)
        return #"{"kty":"EC","crv":"P-384","kid":"\#(kid)","x":"\#(Base64URL.encode(point[1..<49]))","y":"\#(Base64URL.encode(point[49..<97]))"}"#
    }

    /// The JWK of an openssl RSA key, from `openssl rsa -modulus` and `-text` (the exponent).
    func rsaJWK(_ key: String, kid: String) throws -> String {
        let modulusLine = try openssl.runChecked(["rsa", "-in", key, "-noout", "-modulus"]).stdout
        let hex = modulusLine.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "Modulus=", with: "")
        let modulus = try #require(Self.bytes(hex: hex))
        let text = try openssl.runChecked(["rsa", "-in", key, "-noout", "-text"]).stdout
        #expect(text.contains("publicExponent: 65537 (0x10001)"))
        return #"{"kty":"RSA","kid":"\#(kid)","n":"\#(Base64URL.encode(modulus))","e":"AQAB"}"#
    }

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i..<(i + 2)], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }

    func assertion(alg: String, kid: String, key: String, claims: String = TestJWT.claims(), ecdsa: Bool) throws -> String {
        let input = TestJWT.signingInput(header: #"{"alg":"\#(alg)","typ":"JWT","kid":"\#(kid)"}"#, claims: claims)
        var signature = try sign(input, key: key)
        if ecdsa { signature = try #require(ECDSADER.raw(fromDER: signature, size: 48)) }
        return input + "." + Base64URL.encode(signature)
    }

    func verify(_ jwt: String, keys: ClientKeySet) throws(ClientAssertionError) -> VerifiedAssertion {
        try ClientAssertion.verify(jwt, clientID: TestJWT.clientID, tokenEndpoint: TestJWT.tokenEndpoint, keys: keys, now: TestJWT.now)
    }

    @Test func es384FromOpenSSLVerifies() throws {
        try openssl.runChecked(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", "ec.pem"])
        let keys = try ClientKeySet(json: TestJWT.jwks(try ecJWK("ec.pem", kid: "openssl-ec")))
        let jwt = try assertion(alg: "ES384", kid: "openssl-ec", key: "ec.pem", ecdsa: true)
        let verified = try verify(jwt, keys: keys)
        #expect(verified.algorithm == .es384 && verified.keyID == "openssl-ec" && verified.jti == "jti-1")
        // The same key, the wrong algorithm name: refused.
        #expect(throws: ClientAssertionError.unsupportedAlgorithm("ES256")) { try verify(try assertion(alg: "ES256", kid: "openssl-ec", key: "ec.pem", ecdsa: true), keys: keys) }
        // The DER signature openssl writes is not the JWS form.
        let der = try sign(TestJWT.signingInput(header: #"{"alg":"ES384","kid":"openssl-ec"}"#, claims: TestJWT.claims()), key: "ec.pem")
        let derJWT = TestJWT.signingInput(header: #"{"alg":"ES384","kid":"openssl-ec"}"#, claims: TestJWT.claims()) + "." + Base64URL.encode(der)
        #expect(throws: ClientAssertionError.badSignature) { try verify(derJWT, keys: keys) }
    }

    @Test func rs384FromOpenSSLVerifies() throws {
        try openssl.runChecked(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "rsa.pem"])
        try openssl.runChecked(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:3072", "-out", "rsa3072.pem"])
        let keys = try ClientKeySet(json: TestJWT.jwks(try rsaJWK("rsa.pem", kid: "openssl-rsa"), try rsaJWK("rsa3072.pem", kid: "big")))
        let verified = try verify(try assertion(alg: "RS384", kid: "openssl-rsa", key: "rsa.pem", ecdsa: false), keys: keys)
        #expect(verified.algorithm == .rs384 && verified.keyID == "openssl-rsa")
        #expect(try verify(try assertion(alg: "RS384", kid: "big", key: "rsa3072.pem", ecdsa: false), keys: keys).keyID == "big")
        // Signed by one key, naming the other.
        #expect(throws: ClientAssertionError.badSignature) { try verify(try assertion(alg: "RS384", kid: "big", key: "rsa.pem", ecdsa: false), keys: keys) }
        // An expired assertion from a good key.
        let expired = TestJWT.claims(exp: TestJWT.now.timeIntervalSince1970 - 1)
        #expect(throws: ClientAssertionError.expired(exp: TestJWT.now.addingTimeInterval(-1), now: TestJWT.now)) {
            try verify(try assertion(alg: "RS384", kid: "openssl-rsa", key: "rsa.pem", claims: expired, ecdsa: false), keys: keys)
        }
    }

    @Test func rsaPSSFromOpenSSLIsNotRS384() throws {
        try openssl.runChecked(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "rsa.pem"])
        let keys = try ClientKeySet(json: TestJWT.jwks(try rsaJWK("rsa.pem", kid: "k")))
        let input = TestJWT.signingInput(header: #"{"alg":"RS384","kid":"k"}"#, claims: TestJWT.claims())
        try openssl.write("input.txt", input)
        try openssl.runChecked(["dgst", "-sha384", "-sigopt", "rsa_padding_mode:pss", "-sign", "rsa.pem", "-out", "pss.bin", "input.txt"])
        #expect(throws: ClientAssertionError.badSignature) { try verify(input + "." + Base64URL.encode(try openssl.read("pss.bin")), keys: keys) }
    }

    @Test func a1024BitOpenSSLKeyIsRefused() throws {
        try openssl.runChecked(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", "small.pem"])
        #expect(throws: ClientKeySetError.rsaKeyTooSmall(index: 0, kid: "small", bits: 1024)) {
            try ClientKeySet(json: TestJWT.jwks(try rsaJWK("small.pem", kid: "small")))
        }
    }
}
