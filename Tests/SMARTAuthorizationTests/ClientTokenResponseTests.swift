import Foundation
import SMARTAuthorization
import Testing

@Suite struct ClientTokenResponseTests {
    @Test func readsTheSpecsTokenResponse() throws {
        let token = try TokenResponse(data: ClientTest.data(ClientSpecExamples.publicAppTokenResponse))
        #expect(token.accessToken.hasPrefix("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."))
        #expect(token.tokenType == "Bearer")
        #expect(token.expiresIn == 3600)
        #expect(token.scope == "launch/patient patient/Observation.rs patient/Patient.rs")
        #expect(token.patient == "87a339d0-8cae-418e-89c7-8651e6aab3c6")
        #expect(token.refreshToken?.hasPrefix("eyJ") == true)
        #expect(token.idToken == nil)
        let received = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(token.expiry(receivedAt: received) == received.addingTimeInterval(3600))
    }

    @Test func acceptsWhatServersVaryOn() throws {
        let token = try TokenResponse(data: ClientTest.data(
            #"{"access_token":"a","token_type":"bearer","expires_in":"300","refresh_token":"","id_token":"h.p.s","patient":null}"#
        ))
        #expect(token.tokenType == "bearer" && token.expiresIn == 300)
        #expect(token.refreshToken == nil && token.idToken == "h.p.s" && token.patient == nil)
        #expect(try TokenResponse(data: ClientTest.data(#"{"access_token":"a","token_type":"BEARER"}"#)).expiresIn == nil)
    }

    @Test func roundTripsThroughCodableWithWireNames() throws {
        let token = TokenResponse(accessToken: "a", expiresIn: 60, refreshToken: "r", scope: "openid", patient: "p", idToken: "i")
        let encoded = try JSONEncoder().encode(token)
        let text = String(decoding: encoded, as: UTF8.self)
        #expect(text.contains(#""access_token":"a""#) && text.contains(#""token_type":"Bearer""#) && text.contains(#""expires_in":60"#))
        #expect(try JSONDecoder().decode(TokenResponse.self, from: encoded) == token)
        #expect(try TokenResponse(data: encoded) == token)
    }

    @Test func tokenErrorsAreTyped() {
        func read(_ json: String) throws(SMARTClientError) -> TokenResponse { try TokenResponse(data: ClientTest.data(json)) }
        #expect(throws: SMARTClientError.malformedTokenResponse("no access_token")) { try read(#"{"token_type":"Bearer"}"#) }
        #expect(throws: SMARTClientError.malformedTokenResponse("no access_token")) { try read(#"{"access_token":"","token_type":"Bearer"}"#) }
        #expect(throws: SMARTClientError.malformedTokenResponse("access_token is not a string")) { try read(#"{"access_token":7,"token_type":"Bearer"}"#) }
        #expect(throws: SMARTClientError.malformedTokenResponse("no token_type")) { try read(#"{"access_token":"a"}"#) }
        #expect(throws: SMARTClientError.unsupportedTokenType("MAC")) { try read(#"{"access_token":"a","token_type":"MAC"}"#) }
        #expect(throws: SMARTClientError.unsupportedTokenType("DPoP")) { try read(#"{"access_token":"a","token_type":"DPoP"}"#) }
        #expect(throws: SMARTClientError.malformedTokenResponse("expires_in -1 is not a whole number of seconds")) {
            try read(#"{"access_token":"a","token_type":"Bearer","expires_in":-1}"#)
        }
        #expect(throws: SMARTClientError.malformedTokenResponse("expires_in 3600.5 is not a whole number of seconds")) {
            try read(#"{"access_token":"a","token_type":"Bearer","expires_in":3600.5}"#)
        }
        #expect(throws: SMARTClientError.malformedTokenResponse(#"expires_in "1h" is not a whole number of seconds"#)) {
            try read(#"{"access_token":"a","token_type":"Bearer","expires_in":"1h"}"#)
        }
        #expect(throws: SMARTClientError.malformedTokenResponse("scope is not a string")) {
            try read(#"{"access_token":"a","token_type":"Bearer","scope":["openid"]}"#)
        }
        #expect(throws: SMARTClientError.malformedTokenResponse("not JSON: the document is not a JSON object")) { try read("[]") }
        guard case .malformedTokenResponse(let reason)? = ClientTest.error({ () throws(SMARTClientError) in try read("<html>502</html>") }) else {
            Issue.record("an HTML body is a malformed token response")
            return
        }
        #expect(reason.hasPrefix("not JSON"))
    }

    @Test func readsOAuthErrors() {
        #expect(OAuthErrorResponse(data: ClientTest.data(#"{"error":"invalid_request"}"#)) == OAuthErrorResponse(error: "invalid_request"))
        let full = OAuthErrorResponse(data: ClientTest.data(#"{"error":"invalid_grant","error_description":"The refresh token was revoked","error_uri":"https://a.example/e"}"#))
        #expect(full?.error == "invalid_grant" && full?.description == "The refresh token was revoked")
        #expect(OAuthErrorResponse(data: ClientTest.data(#"{"error":"invalid_client","error_description":42}"#)) == OAuthErrorResponse(error: "invalid_client"))
        #expect(OAuthErrorResponse(data: ClientTest.data("<html>Bad Gateway</html>")) == nil)
        #expect(OAuthErrorResponse(data: ClientTest.data(#"{"error":5}"#)) == nil)
        #expect(OAuthErrorResponse(data: ClientTest.data(#"{"error":""}"#)) == nil)
        #expect(OAuthErrorResponse(data: ClientTest.data(#"["error"]"#)) == nil)
        #expect(OAuthErrorResponse(data: ClientTest.data(#"{"access_token":"a","token_type":"Bearer"}"#)) == nil)
    }
}
