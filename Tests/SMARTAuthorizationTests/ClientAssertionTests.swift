import ByteEncodings
import Crypto
import CryptoExtras
import Foundation
import SMARTAuthorization
import Testing

@Suite struct ClientAssertionTests {
    let keys: ClientKeySet
    let now = TestJWT.now

    init() throws {
        keys = try ClientKeySet(json: TestJWT.jwks(TestJWT.jwk(TestKeys.ec.publicKey, kid: "ec-1"), try TestJWT.jwk(TestKeys.rsa.publicKey, kid: "rsa-1")))
    }

    func verify(_ jwt: String, keys: ClientKeySet? = nil) throws(ClientAssertionError) -> VerifiedAssertion {
        try ClientAssertion.verify(jwt, clientID: TestJWT.clientID, tokenEndpoint: TestJWT.tokenEndpoint, keys: keys ?? self.keys, now: now)
    }

    @Test func es384AssertionsVerify() throws {
        let verified = try verify(try TestJWT.es384(TestKeys.ec))
        #expect(verified.jti == "jti-1")
        #expect(verified.exp == now.addingTimeInterval(240))
        #expect(verified.algorithm == .es384 && verified.keyID == "ec-1")
    }

    @Test func rs384AssertionsVerify() throws {
        let verified = try verify(try TestJWT.rs384(TestKeys.rsa, claims: TestJWT.claims(jti: "r-2")))
        #expect(verified.jti == "r-2" && verified.algorithm == .rs384 && verified.keyID == "rsa-1")
    }

    @Test func withoutKidEveryKeyOfTheAlgorithmIsTried() throws {
        let set = try ClientKeySet(json: TestJWT.jwks(
            TestJWT.jwk(TestKeys.otherEC.publicKey, kid: "old"), TestJWT.jwk(TestKeys.ec.publicKey, kid: "new"), try TestJWT.jwk(TestKeys.rsa.publicKey, kid: nil)
        ))
        #expect(try verify(try TestJWT.es384(TestKeys.ec, kid: nil), keys: set).keyID == "new")
        #expect(try verify(try TestJWT.rs384(TestKeys.rsa, kid: nil), keys: set).keyID == nil)
    }

    @Test func audienceMayBeAnArrayAndTypMayBeAbsent() throws {
        let claims = TestJWT.claims(aud: #"["https://elsewhere.example/token","\#(TestJWT.tokenEndpoint)"]"#)
        #expect(try verify(try TestJWT.es384(TestKeys.ec, header: #"{"alg":"ES384","kid":"ec-1"}"#, claims: claims)).jti == "jti-1")
    }

    @Test func iatAndNbfMayBeSlightlyAhead() throws {
        let t = now.timeIntervalSince1970
        #expect(throws: Never.self) { try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(iat: t + 59, extra: [#""nbf":\#(Int(t) + 59)"#]))) }
        #expect(throws: ClientAssertionError.issuedInFuture(iat: now.addingTimeInterval(61), now: now)) {
            try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(iat: t + 61)))
        }
        #expect(throws: ClientAssertionError.notYetValid(nbf: now.addingTimeInterval(120), now: now)) {
            try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(extra: [#""nbf":\#(Int(t) + 120)"#])))
        }
    }

    // MARK: - Algorithms

    @Test(arguments: ["none", "HS256", "HS384", "ES256", "RS256", "PS384", "ES512", "EdDSA", "es384"])
    func otherAlgorithmsAreRefused(alg: String) throws {
        let jwt = try TestJWT.es384(TestKeys.ec, header: #"{"alg":"\#(alg)","typ":"JWT","kid":"ec-1"}"#)
        #expect(throws: ClientAssertionError.unsupportedAlgorithm(alg)) { try verify(jwt) }
    }

    @Test func algNoneWithAnEmptySignatureIsRefused() {
        let jwt = TestJWT.signingInput(header: #"{"alg":"none","typ":"JWT"}"#, claims: TestJWT.claims()) + "."
        #expect(throws: ClientAssertionError.notCompactJWS("an empty part")) { try verify(jwt) }
        let withSignature = TestJWT.signingInput(header: #"{"alg":"none"}"#, claims: TestJWT.claims()) + ".AA"
        #expect(throws: ClientAssertionError.unsupportedAlgorithm("none")) { try verify(withSignature) }
    }

    /// An HMAC over the public key's bytes (the classic algorithm-confusion attack) is refused
    /// by its `alg` before any key is used.
    @Test func hmacWithThePublicKeyIsRefused() throws {
        let secret = SymmetricKey(data: Data(TestKeys.rsa.publicKey.pemRepresentation.utf8))
        let jwt = TestJWT.compact(header: #"{"alg":"HS384","kid":"rsa-1"}"#, claims: TestJWT.claims()) {
            Array(HMAC<SHA384>.authenticationCode(for: $0, using: secret))
        }
        #expect(throws: ClientAssertionError.unsupportedAlgorithm("HS384")) { try verify(jwt) }
    }

    @Test func headerProblemsAreRefused() throws {
        #expect(throws: ClientAssertionError.unsupportedAlgorithm(nil)) { try verify(try TestJWT.es384(TestKeys.ec, header: #"{"kid":"ec-1"}"#)) }
        #expect(throws: ClientAssertionError.unsupportedAlgorithm("384")) { try verify(try TestJWT.es384(TestKeys.ec, header: #"{"alg":384}"#)) }
        #expect(throws: ClientAssertionError.unsupportedType("JOSE+JSON")) {
            try verify(try TestJWT.es384(TestKeys.ec, header: #"{"alg":"ES384","typ":"JOSE+JSON","kid":"ec-1"}"#))
        }
        #expect(throws: ClientAssertionError.criticalHeader) {
            try verify(try TestJWT.es384(TestKeys.ec, header: #"{"alg":"ES384","kid":"ec-1","crit":["exp"],"exp":1}"#))
        }
        #expect(throws: ClientAssertionError.duplicateMember(part: "header", member: "alg")) {
            try verify(try TestJWT.es384(TestKeys.ec, header: #"{"alg":"ES384","alg":"none","kid":"ec-1"}"#))
        }
        #expect(throws: ClientAssertionError.duplicateMember(part: "claims", member: "aud")) {
            try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(extra: [#""aud":"https://attacker.example/token""#])))
        }
    }

    // MARK: - Keys and signatures

    @Test func aSignatureByAnotherKeyIsRefused() throws {
        #expect(throws: ClientAssertionError.badSignature) { try verify(try TestJWT.es384(TestKeys.otherEC)) }
        #expect(throws: ClientAssertionError.badSignature) { try verify(try TestJWT.rs384(TestKeys.otherRSA)) }
        #expect(throws: ClientAssertionError.badSignature) { try verify(try TestJWT.es384(TestKeys.otherEC, kid: nil)) }
    }

    @Test func anUnknownKidOrTheWrongKindOfKeyIsRefused() throws {
        #expect(throws: ClientAssertionError.unknownKey(kid: "nope", algorithm: .es384)) { try verify(try TestJWT.es384(TestKeys.ec, kid: "nope")) }
        #expect(throws: ClientAssertionError.keyAlgorithmMismatch(kid: "rsa-1", algorithm: .es384)) { try verify(try TestJWT.es384(TestKeys.ec, kid: "rsa-1")) }
        let ecOnly = try ClientKeySet(json: TestJWT.jwks(TestJWT.jwk(TestKeys.ec.publicKey)))
        #expect(throws: ClientAssertionError.unknownKey(kid: nil, algorithm: .rs384)) { try verify(try TestJWT.rs384(TestKeys.rsa, kid: nil), keys: ecOnly) }
    }

    @Test func aTamperedPayloadIsRefused() throws {
        let jwt = try TestJWT.es384(TestKeys.ec)
        let parts = jwt.split(separator: ".").map(String.init)
        let forged = Base64URL.encode(Array(TestJWT.claims(iss: "other-app", sub: "other-app").utf8))
        #expect(throws: ClientAssertionError.badSignature) { try verify([parts[0], forged, parts[2]].joined(separator: ".")) }
        let rsa = try TestJWT.rs384(TestKeys.rsa).split(separator: ".").map(String.init)
        #expect(throws: ClientAssertionError.badSignature) { try verify([rsa[0], forged, rsa[2]].joined(separator: ".")) }
        // A flipped signature bit.
        var signature = try Base64URL.decode(parts[2])
        signature[10] ^= 1
        #expect(throws: ClientAssertionError.badSignature) { try verify([parts[0], parts[1], Base64URL.encode(signature)].joined(separator: ".")) }
    }

    @Test func derSignaturesAreNotAcceptedForES384() throws {
        let jwt = try TestJWT.compact(header: #"{"alg":"ES384","kid":"ec-1"}"#, claims: TestJWT.claims()) {
            Array(try TestKeys.ec.signature(for: $0).derRepresentation)
        }
        #expect(throws: ClientAssertionError.badSignature) { try verify(jwt) }
    }

    @Test func malformedCompactSerializationsAreRefused() throws {
        let jwt = try TestJWT.es384(TestKeys.ec)
        #expect(throws: ClientAssertionError.notCompactJWS("expected 3 dot-separated parts, found 2")) { try verify("a.b") }
        #expect(throws: ClientAssertionError.notCompactJWS("expected 3 dot-separated parts, found 4")) { try verify(jwt + ".x") }
        #expect(throws: ClientAssertionError.self) { try verify(jwt + "=") }
        #expect(throws: ClientAssertionError.self) { try verify(" " + jwt) }
        let notJSON = Base64URL.encode(Array("not json".utf8))
        #expect(throws: ClientAssertionError.self) { try verify("\(notJSON).\(notJSON).AAAA") }
        #expect(throws: ClientAssertionError.tooLarge(bytes: ClientAssertion.maximumLength + 1)) {
            try verify(String(repeating: "a", count: ClientAssertion.maximumLength + 1))
        }
    }

    // MARK: - Claims

    @Test func issuerAndSubjectMustBeTheClient() throws {
        #expect(throws: ClientAssertionError.wrongIssuer(expected: TestJWT.clientID, found: "someone")) {
            try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(iss: "someone")))
        }
        #expect(throws: ClientAssertionError.wrongSubject(expected: TestJWT.clientID, found: "someone")) {
            try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(sub: "someone")))
        }
        #expect(throws: ClientAssertionError.wrongSubject(expected: TestJWT.clientID, found: nil)) {
            try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(sub: nil)))
        }
        #expect(throws: ClientAssertionError.wrongIssuer(expected: TestJWT.clientID, found: "x")) {
            try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(iss: "x", sub: "x")))
        }
    }

    @Test func theAudienceMustBeTheTokenEndpoint() throws {
        #expect(throws: ClientAssertionError.wrongAudience(expected: TestJWT.tokenEndpoint, found: ["http://127.0.0.1:8080/fhir"])) {
            try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(aud: #""http://127.0.0.1:8080/fhir""#)))
        }
        #expect(throws: ClientAssertionError.wrongAudience(expected: TestJWT.tokenEndpoint, found: [TestJWT.tokenEndpoint + "/"])) {
            try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(aud: #""\#(TestJWT.tokenEndpoint)/""#)))
        }
        #expect(throws: ClientAssertionError.wrongAudience(expected: TestJWT.tokenEndpoint, found: [])) {
            try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(aud: nil)))
        }
        #expect(throws: ClientAssertionError.invalidClaim(name: "aud", reason: "an element is not a string")) {
            try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(aud: #"["\#(TestJWT.tokenEndpoint)",1]"#)))
        }
    }

    @Test func expiryIsRequiredInTheFutureAndAtMostFiveMinutesAhead() throws {
        let t = now.timeIntervalSince1970
        #expect(throws: ClientAssertionError.missingExpiry) { try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(exp: nil))) }
        #expect(throws: ClientAssertionError.expired(exp: now, now: now)) { try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(exp: t))) }
        #expect(throws: ClientAssertionError.expired(exp: now.addingTimeInterval(-30), now: now)) {
            try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(exp: t - 30)))
        }
        #expect(throws: ClientAssertionError.expiryTooFar(exp: now.addingTimeInterval(301), latest: now.addingTimeInterval(300))) {
            try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(exp: t + 301)))
        }
        #expect(throws: ClientAssertionError.expiryTooFar(exp: now.addingTimeInterval(3600), latest: now.addingTimeInterval(300))) {
            try verify(try TestJWT.rs384(TestKeys.rsa, claims: TestJWT.claims(exp: t + 3600)))
        }
        #expect(try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(exp: t + 300))).exp == now.addingTimeInterval(300))
        #expect(try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(exp: t + 0.5))).exp == now.addingTimeInterval(0.5))
        #expect(throws: ClientAssertionError.invalidClaim(name: "exp", reason: "not a number")) {
            try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(exp: nil, extra: [#""exp":"\#(Int(t) + 60)""#])))
        }
    }

    @Test func jtiIsRequired() throws {
        #expect(throws: ClientAssertionError.missingJTI) { try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(jti: nil))) }
        #expect(throws: ClientAssertionError.missingJTI) { try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(jti: ""))) }
        #expect(throws: ClientAssertionError.invalidClaim(name: "jti", reason: "not a string")) {
            try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(jti: nil, extra: [#""jti":42"#])))
        }
        let long = String(repeating: "j", count: ClientAssertion.maximumJTILength + 1)
        #expect(throws: ClientAssertionError.jtiTooLong(bytes: long.utf8.count)) { try verify(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(jti: long))) }
    }

    @Test func theClaimedClientIDFindsTheKeysBeforeVerifying() throws {
        #expect(try ClientAssertion.claimedClientID(try TestJWT.es384(TestKeys.ec)) == TestJWT.clientID)
        #expect(throws: ClientAssertionError.wrongSubject(expected: TestJWT.clientID, found: "other")) {
            try ClientAssertion.claimedClientID(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(sub: "other")))
        }
        #expect(throws: ClientAssertionError.invalidClaim(name: "iss", reason: "missing or empty")) {
            try ClientAssertion.claimedClientID(try TestJWT.es384(TestKeys.ec, claims: TestJWT.claims(iss: nil)))
        }
        #expect(throws: ClientAssertionError.notCompactJWS("expected 3 dot-separated parts, found 1")) { try ClientAssertion.claimedClientID("garbage") }
        #expect(ClientAssertion.assertionType == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
    }

    @Test func errorsSayWhatIsWrong() {
        #expect(ClientAssertionError.unsupportedAlgorithm("none").description.contains("none"))
        #expect(ClientAssertionError.wrongAudience(expected: "E", found: ["F"]).description.contains("E"))
    }
}
