import SMARTAuthorization
import Testing

@Suite struct PKCETests {
    /// RFC 7636 appendix B.
    @Test func rfcExample() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        #expect(PKCE.challenge(for: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.verify(verifier: verifier, challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
        #expect(!PKCE.verify(verifier: verifier + "x", challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
        #expect(PKCE.isValidChallenge("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"))
    }

    @Test func malformedValuesAreRefused() {
        #expect(!PKCE.isValidChallenge("short"))
        #expect(!PKCE.isValidVerifier("short"))
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 129)))
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 42) + "!"))
        // A plain challenge equal to the verifier never verifies.
        let v = String(repeating: "a", count: 43)
        #expect(!PKCE.verify(verifier: v, challenge: v))
    }
}
