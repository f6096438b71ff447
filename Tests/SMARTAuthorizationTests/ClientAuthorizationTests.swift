import ByteEncodings
import Foundation
import SMARTAuthorization
import Testing

@Suite struct ClientAuthorizationTests {
    @Test func secretsAre256RandomBitsInBase64URL() throws {
        var seen = Set<String>()
        for _ in 0..<200 {
            let state = AuthorizationSecrets.state(), verifier = AuthorizationSecrets.codeVerifier()
            #expect(state.utf8.count == 43 && verifier.utf8.count == 43)
            #expect(try Base64URL.decode(state).count == 32)
            #expect(try Base64URL.decode(verifier).count == 32)
            #expect(PKCE.isValidVerifier(verifier))
            seen.insert(state)
            seen.insert(verifier)
        }
        #expect(seen.count == 400)
    }

    /// The spec's public app walk-through: same parameters, same encoding of every value.
    @Test func requestMatchesTheSpecsPublicAppExample() throws {
        let spec = try #require(URL(string: ClientSpecExamples.publicAppAuthorizeURL))
        let specItems = ClientTest.query(spec)
        func value(_ name: String) -> String { specItems.first { $0.name == name }?.value ?? "" }
        var endpoint = try #require(URLComponents(url: spec, resolvingAgainstBaseURL: false))
        endpoint.query = nil
        let request = AuthorizationRequest(
            endpoint: try #require(endpoint.url), clientID: value("client_id"), redirectURI: value("redirect_uri"), scope: value("scope"),
            state: value("state"), audience: value("aud"), codeVerifier: ClientSpecExamples.publicAppCodeVerifier
        )
        let ours = request.url
        #expect(Set(ClientTest.query(ours)) == Set(specItems))
        #expect(ours.absoluteString.hasPrefix(try #require(endpoint.url).absoluteString + "?response_type=code&client_id="))
        // Percent-encoded exactly as the spec shows (no `+`, `/` and `:` escaped).
        let specQuery = try #require(spec.query).split(separator: "&").map(String.init)
        let ourQuery = try #require(ours.query).split(separator: "&").map(String.init)
        #expect(Set(ourQuery) == Set(specQuery))
        #expect(value("code_challenge") == PKCE.challenge(for: ClientSpecExamples.publicAppCodeVerifier))
    }

    @Test func requestKeepsTheEndpointsQueryAndEncodesEverything() throws {
        let request = AuthorizationRequest(
            endpoint: try #require(URL(string: "https://auth.example.org/authorize?tenant=a%20b#ignored")),
            clientID: "my app&x=1", redirectURI: "http://127.0.0.1:5000/callback?x=1", scope: "patient/*.rs offline_access openid+fhirUser",
            state: "s/t+a=te", audience: "https://fhir.example.org/r4", codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        )
        let url = request.url
        #expect(url.fragment == nil)
        let items = ClientTest.query(url)
        #expect(items.map(\.name) == [
            "tenant", "response_type", "client_id", "redirect_uri", "scope", "state", "aud", "code_challenge", "code_challenge_method",
        ])
        #expect(items.map { $0.value ?? "" } == [
            "a b", "code", "my app&x=1", "http://127.0.0.1:5000/callback?x=1", "patient/*.rs offline_access openid+fhirUser", "s/t+a=te",
            "https://fhir.example.org/r4", "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "S256",
        ])
        // RFC 7636 appendix B's verifier and challenge; `+` is sent as %2B, never left to mean a space.
        #expect(url.query?.contains("openid%2BfhirUser") == true && url.query?.contains("+") == false)
        #expect(url.query?.hasPrefix("tenant=a%20b&response_type=code") == true)
    }

    @Test func parsesTheSpecsCallback() throws {
        let callback = try #require(URL(string: ClientSpecExamples.publicAppCallbackURL))
        let query = try #require(callback.query)
        let expectedCode = try #require(ClientTest.query(callback).first { $0.name == "code" }?.value)
        #expect(try AuthorizationCallback.parse(query: query, expectedState: "0hJc1S9O4oW54XuY") == .code(expectedCode))
        #expect(try AuthorizationCallback.parse(query: "?" + query, expectedState: "0hJc1S9O4oW54XuY") == .code(expectedCode))
        #expect(throws: SMARTClientError.stateMismatch) { try AuthorizationCallback.parse(query: query, expectedState: "0hJc1S9O4oW54XuZ") }
    }

    @Test func parsesDenials() throws {
        #expect(try AuthorizationCallback.parse(query: "error=access_denied&error_description=The+user+said+%22no%22&state=abc", expectedState: "abc")
            == .denied(error: "access_denied", description: #"The user said "no""#))
        #expect(try AuthorizationCallback.parse(query: "state=abc&error=invalid_scope", expectedState: "abc") == .denied(error: "invalid_scope", description: nil))
        // An error wins over a code sent alongside it.
        #expect(try AuthorizationCallback.parse(query: "code=c&error=server_error&state=abc", expectedState: "abc") == .denied(error: "server_error", description: nil))
        #expect(try AuthorizationCallback.parse(query: "code=a%2Fb%3D&state=abc&iss=https%3A%2F%2Fehr", expectedState: "abc") == .code("a/b="))
    }

    @Test func callbackErrorsAreTyped() {
        func parse(_ query: String, _ state: String = "abc") throws(SMARTClientError) -> AuthorizationCallback {
            try AuthorizationCallback.parse(query: query, expectedState: state)
        }
        #expect(throws: SMARTClientError.stateMismatch) { try parse("code=c") }
        #expect(throws: SMARTClientError.stateMismatch) { try parse("code=c&state=abd") }
        #expect(throws: SMARTClientError.stateMismatch) { try parse("code=c&state=ab") }
        #expect(throws: SMARTClientError.stateMismatch) { try parse("code=c&state=abc&state=abc") }
        #expect(throws: SMARTClientError.stateMismatch) { try parse("code=c&state=ABC") }
        #expect(throws: SMARTClientError.stateMismatch) { try parse("error=access_denied") }
        #expect(throws: SMARTClientError.stateMismatch) { try parse("code=c&state=%zz") }
        #expect(throws: SMARTClientError.stateMismatch) { try parse("code=c&state=", "") }
        #expect(throws: SMARTClientError.stateMismatch) { try parse("") }
        #expect(throws: SMARTClientError.missingCode) { try parse("state=abc") }
        #expect(throws: SMARTClientError.missingCode) { try parse("state=abc&code=") }
        #expect(throws: SMARTClientError.missingCode) { try parse("state=abc&code=a&code=b") }
    }
}
