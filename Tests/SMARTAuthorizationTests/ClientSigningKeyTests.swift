import ByteEncodings
import Crypto
import CryptoExtras
import FHIR
import Foundation
import SMARTAuthorization
import Testing

@Suite struct ClientSigningKeyTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000.75)
    let tokenEndpoint = URL(string: "https://ehr.example.com/auth/token")!

    /// Makes an assertion and checks it with the server's own verifier, keys from `publicJWKS`.
    func roundTrip(_ key: ClientSigningKey, clientID: String = "app-123") throws -> VerifiedAssertion {
        let jwt = try key.assertion(clientID: clientID, tokenEndpoint: tokenEndpoint, now: now)
        return try ClientAssertion.verify(jwt, clientID: clientID, tokenEndpoint: tokenEndpoint.absoluteString, keys: ClientKeySet(json: key.publicJWKS), now: now)
    }

    /// The one JWK of a JWKS text with member `d`, as text.
    static func privateJWK(_ jwks: String, dropping: Set<String> = [], adding: [JSONMember] = []) throws -> String {
        let keys = try #require(try JSONReader().read(jwks)["keys"]?.arrayValue)
        var object = try #require(keys.compactMap(\.objectValue).first { $0["d"] != nil })
        object.members.removeAll { dropping.contains($0.key) }
        object.members += adding
        return JSONWriter.minifiedString(.object(object))
    }

    @Test func readsTheSpecsES384KeySetAndItsAssertionsVerify() throws {
        let key = try ClientSigningKey(data: ClientTest.data(ClientSpecExamples.es384PrivateJWKS))
        #expect(key.algorithm == .es384 && key.keyID == "cd520211e5661dbba2256f67f6d53f97")
        let verified = try roundTrip(key)
        #expect(verified.algorithm == .es384 && verified.keyID == "cd520211e5661dbba2256f67f6d53f97")
        // Also under the spec's own public key set.
        let jwt = try key.assertion(clientID: "app-123", tokenEndpoint: tokenEndpoint, now: now)
        _ = try ClientAssertion.verify(jwt, clientID: "app-123", tokenEndpoint: tokenEndpoint.absoluteString, keys: ClientKeySet(json: ClientSpecExamples.es384PublicJWKS), now: now)
        // And the spec's own assertion verifies under our public JWKS: the same key, read right.
        let specVerified = try ClientAssertion.verify(
            ClientSpecExamples.es384Assertion, clientID: ClientSpecExamples.assertionClientID, tokenEndpoint: ClientSpecExamples.assertionTokenEndpoint,
            keys: ClientKeySet(json: key.publicJWKS), now: ClientSpecExamples.assertionExpiry.addingTimeInterval(-60)
        )
        #expect(specVerified.jti == "random-non-reusable-jwt-id-123")
    }

    @Test func readsTheSpecsRS384KeySetAndItsAssertionsVerify() throws {
        let key = try ClientSigningKey(data: ClientTest.data(ClientSpecExamples.rs384PrivateJWKS))
        #expect(key.algorithm == .rs384 && key.keyID == "eee9f17a3b598fd86417a980b591fbe6")
        #expect(try roundTrip(key).keyID == "eee9f17a3b598fd86417a980b591fbe6")
        _ = try ClientAssertion.verify(
            ClientSpecExamples.rs384Assertion, clientID: ClientSpecExamples.assertionClientID, tokenEndpoint: ClientSpecExamples.assertionTokenEndpoint,
            keys: ClientKeySet(json: key.publicJWKS), now: ClientSpecExamples.assertionExpiry.addingTimeInterval(-60)
        )
        // Without the CRT members (only n, e, d): the primes are recovered and the key signs the same.
        let bare = try Self.privateJWK(ClientSpecExamples.rs384PrivateJWKS, dropping: ["p", "q", "dp", "dq", "qi"])
        let bareKey = try ClientSigningKey(data: ClientTest.data(bare), keyID: "bare")
        #expect(bareKey.publicJWKS == key.publicJWKS.replacingOccurrences(of: "eee9f17a3b598fd86417a980b591fbe6", with: "bare"))
        #expect(try roundTrip(bareKey).keyID == "bare")
    }

    @Test func assertionHasTheContractsHeaderAndClaims() throws {
        let key = try ClientSigningKey(data: ClientTest.data(Self.privateJWK(ClientSpecExamples.es384PrivateJWKS)), keyID: "mine")
        #expect(key.keyID == "mine")
        let jwt = try key.assertion(clientID: "app-123", tokenEndpoint: tokenEndpoint, now: now)
        let (header, claims, signature) = try ClientTest.parts(jwt)
        #expect(header.keys == ["alg", "typ", "kid"])
        #expect(header["alg"] == .string("ES384") && header["typ"] == .string("JWT") && header["kid"] == .string("mine"))
        #expect(claims["iss"] == .string("app-123") && claims["sub"] == .string("app-123"))
        #expect(claims["aud"] == .string("https://ehr.example.com/auth/token"))
        #expect(claims["exp"]?.numberValue?.intValue == 1_700_000_300)
        #expect(claims["iat"]?.numberValue?.intValue == 1_700_000_000)
        let jti = try #require(claims["jti"]?.stringValue)
        #expect(try Base64URL.decode(jti).count == 32)
        #expect(signature.count == 96)
        // A fresh jti each time.
        let again = try ClientTest.parts(try key.assertion(clientID: "app-123", tokenEndpoint: tokenEndpoint, now: now)).claims
        #expect(again["jti"] != claims["jti"])
        // The verifier's own limits: accepted until exp, refused for another client or endpoint.
        let keys = try ClientKeySet(json: key.publicJWKS)
        _ = try ClientAssertion.verify(jwt, clientID: "app-123", tokenEndpoint: tokenEndpoint.absoluteString, keys: keys, now: now.addingTimeInterval(298))
        #expect(throws: ClientAssertionError.expired(exp: Date(timeIntervalSince1970: 1_700_000_300), now: now.addingTimeInterval(300))) {
            try ClientAssertion.verify(jwt, clientID: "app-123", tokenEndpoint: self.tokenEndpoint.absoluteString, keys: keys, now: self.now.addingTimeInterval(300))
        }
        #expect(throws: ClientAssertionError.wrongIssuer(expected: "other", found: "app-123")) {
            try ClientAssertion.verify(jwt, clientID: "other", tokenEndpoint: self.tokenEndpoint.absoluteString, keys: keys, now: self.now)
        }
        #expect(throws: ClientAssertionError.wrongAudience(expected: "https://ehr.example.com/token", found: ["https://ehr.example.com/auth/token"])) {
            try ClientAssertion.verify(jwt, clientID: "app-123", tokenEndpoint: "https://ehr.example.com/token", keys: keys, now: self.now)
        }
    }

    @Test func publicJWKSHasPublicMembersOnlyAndReadsBack() throws {
        let ec = try ClientSigningKey(data: ClientTest.data(ClientSpecExamples.es384PrivateJWKS))
        let jwks = try #require(try JSONReader().read(ec.publicJWKS)["keys"]?[0]?.objectValue)
        #expect(jwks.keys == ["crv", "kty", "x", "y", "kid", "use", "alg"])
        #expect(jwks["x"] == .string("pyqburM9y8HPcFhNosDW6ngoVEJitqXi_HJgI5hYqX21PoFDwCbYirGy_o0oapIU"))
        #expect(jwks["alg"] == .string("ES384") && jwks["use"] == .string("sig"))
        let rsa = try ClientSigningKey(data: ClientTest.data(ClientSpecExamples.rs384PrivateJWKS))
        let rsaJWK = try #require(try JSONReader().read(rsa.publicJWKS)["keys"]?[0]?.objectValue)
        #expect(rsaJWK.keys == ["e", "kty", "n", "kid", "use", "alg"])
        #expect(rsaJWK["e"] == .string("AQAB") && rsaJWK["n"]?.stringValue?.hasPrefix("wJq2RHIA-7RT6q4go7wjcbHdW7ck") == true)
        #expect(try ClientKeySet(json: rsa.publicJWKS).keys.map(\.algorithm) == [.rs384])
    }

    @Test func keysWithoutAKidGetTheirRFC7638Thumbprint() throws {
        let jwk = try Self.privateJWK(ClientSpecExamples.es384PrivateJWKS, dropping: ["kid"])
        let key = try ClientSigningKey(data: ClientTest.data(jwk))
        let canonical = #"{"crv":"P-384","kty":"EC","x":"pyqburM9y8HPcFhNosDW6ngoVEJitqXi_HJgI5hYqX21PoFDwCbYirGy_o0oapIU","y":"95bxkCnMKoHvgbcPAIAcgzzu8scd81mXfM_IzuJFNfkUNkGYBFGvuEU1KPi5j1ob"}"#
        #expect(key.keyID == Base64URL.encode(Array(SHA256.hash(data: Data(canonical.utf8)))))
        #expect(try roundTrip(key).keyID == key.keyID)
        // Keys made in memory too.
        let fresh = P384.Signing.PrivateKey()
        let memory = ClientSigningKey(p384: fresh)
        #expect(memory.keyID?.utf8.count == 43)
        #expect(try roundTrip(memory).algorithm == .es384)
        let rsa = try ClientSigningKey(rsa: TestKeys.rsa, keyID: "r")
        #expect(try roundTrip(rsa).keyID == "r")
    }

    @Test func jwkErrorsAreTyped() throws {
        func read(_ text: String) -> SMARTClientError? {
            ClientTest.error { () throws(SMARTClientError) in try ClientSigningKey(data: ClientTest.data(text)) }
        }
        let ecPrivate = try Self.privateJWK(ClientSpecExamples.es384PrivateJWKS)
        #expect(read(ClientSpecExamples.es384PublicJWKS) == .unsupportedKey("the key set holds public keys only; the private key (with d) is needed"))
        let two = #"{"keys":[\#(ecPrivate),\#(ecPrivate)]}"#
        #expect(read(two) == .unsupportedKey("the key set holds 2 private keys; give a file with one"))
        let publicOnly = try Self.privateJWK(ClientSpecExamples.es384PrivateJWKS, dropping: ["d", "key_ops"])
        #expect(read(publicOnly) == .unsupportedKey("a public key only; the private key (d) is needed"))
        let p256 = P256.Signing.PrivateKey()
        let p256Raw = Array(p256.publicKey.rawRepresentation)
        let p256JWK = #"{"kty":"EC","crv":"P-256","d":"\#(Base64URL.encode(p256.rawRepresentation))","x":"\#(Base64URL.encode(p256Raw[0..<32]))","y":"\#(Base64URL.encode(p256Raw[32...]))"}"#
        #expect(read(p256JWK) == .unsupportedKey("an EC P-256 key; ES384 needs P-384"))
        #expect(ClientTest.isUnsupportedKey(read(#"{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#), #"kty "OKP""#))
        #expect(ClientTest.isUnsupportedKey(read(#"{"kty":"oct","k":"c2VjcmV0"}"#), #"kty "oct""#))
        let rs256 = try Self.privateJWK(ClientSpecExamples.rs384PrivateJWKS, dropping: ["alg"], adding: [JSONMember("alg", .string("RS256"))])
        #expect(read(rs256) == .unsupportedKey(#"the JWK is for alg "RS256"; this key type signs RS384"#))
        let encryption = try Self.privateJWK(ClientSpecExamples.es384PrivateJWKS, dropping: ["key_ops"], adding: [JSONMember("use", .string("enc"))])
        #expect(read(encryption) == .unsupportedKey(#"use is "enc", not "sig""#))
        let verifyOnly = try Self.privateJWK(ClientSpecExamples.es384PrivateJWKS, dropping: ["key_ops"], adding: [JSONMember("key_ops", .array([.string("verify")]))])
        #expect(read(verifyOnly) == .unsupportedKey(#"key_ops ["verify"] does not include "sign""#))
        // d from one key, x and y from another.
        let other = Array(P384.Signing.PrivateKey().publicKey.rawRepresentation)
        let mixed = try Self.privateJWK(ClientSpecExamples.es384PrivateJWKS, dropping: ["x", "y"], adding: [
            JSONMember("x", .string(Base64URL.encode(other[0..<48]))), JSONMember("y", .string(Base64URL.encode(other[48...]))),
        ])
        #expect(read(mixed) == .unreadableKey("x and y are not the public point of d"))
        let shortD = try Self.privateJWK(ClientSpecExamples.es384PrivateJWKS, dropping: ["d"], adding: [JSONMember("d", .string("AAAA"))])
        #expect(read(shortD) == .unreadableKey("d is 3 bytes; a P-384 scalar is 48"))
        let padded = try Self.privateJWK(ClientSpecExamples.es384PrivateJWKS, dropping: ["d"], adding: [JSONMember("d", .string("AAAA=="))])
        #expect(ClientTest.isUnreadableKey(read(padded), "d is not base64url"))
        // RSA: too short, primes that are not n's, multi-prime.
        let n = try Base64URL.decode(try #require(try JSONReader().read(ClientSpecExamples.rs384PrivateJWKS)["keys"]?[1]?["n"]?.stringValue))
        let short = try Self.privateJWK(ClientSpecExamples.rs384PrivateJWKS, dropping: ["n"], adding: [JSONMember("n", .string(Base64URL.encode(n.prefix(128))))])
        #expect(read(short) == .unsupportedKey("a 1024-bit RSA key; at least 2048 bits are needed"))
        let rsaObject = try #require(try JSONReader().read(ClientSpecExamples.rs384PrivateJWKS)["keys"]?[1]?.objectValue)
        let badPrimes = try Self.privateJWK(ClientSpecExamples.rs384PrivateJWKS, dropping: ["q"], adding: [JSONMember("q", try #require(rsaObject["p"]))])
        #expect(ClientTest.isUnreadableKey(read(badPrimes), "do not form an RSA private key"))
        let multi = try Self.privateJWK(ClientSpecExamples.rs384PrivateJWKS, adding: [JSONMember("oth", .array([]))])
        #expect(read(multi) == .unsupportedKey("a multi-prime RSA key (oth)"))
        // Not a key file at all.
        #expect(read("hello") == .unreadableKey("neither a JWK, a JWKS nor a PEM private key"))
        #expect(read(#"{"kty":"EC""#).map { if case .unreadableKey = $0 { true } else { false } } == true)
        #expect(read(#"{"keys":{}}"#) == .unreadableKey("keys is not an array"))
        #expect(read(#"{"crv":"P-384"}"#) == .unreadableKey("the JWK has no kty"))
        #expect(read(#"["kty"]"#) == .unreadableKey("the JSON is not an object"))
        #expect(ClientTest.error { () throws(SMARTClientError) in try ClientSigningKey(data: Data([0x30, 0x82, 0xFF, 0xFE])) } == .unreadableKey("not text (a DER file? convert it to PEM)"))
        let huge = Data(repeating: UInt8(ascii: " "), count: ClientSigningKey.maximumFileBytes + 1)
        #expect(ClientTest.error { () throws(SMARTClientError) in try ClientSigningKey(data: huge) } == .unreadableKey("the file is 65537 bytes, more than 65536"))
    }
}
