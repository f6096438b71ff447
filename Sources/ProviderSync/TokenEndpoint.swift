import Foundation
import HealthStoreCore
import OutboundHTTP
import SMARTAuthorization

/// Requests to a provider's token endpoint: the code exchange, refresh and Backend Services'
/// `client_credentials`, each authenticated as the connection's client is.
struct TokenEndpoint: Sendable {
    let url: URL
    let http: ProviderHTTP
    let clientID: String?
    let client: ProviderConnection.ClientAuthentication

    /// Exchanges an authorization code (with its PKCE verifier and redirect URI).
    func exchange(code: String, verifier: String, redirectURI: String, now: Date) async throws(ProviderSyncError) -> TokenResponse {
        try await request(
            [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", verifier)], now: now)
    }

    /// Uses a refresh token.
    func refresh(_ token: String, now: Date) async throws(ProviderSyncError) -> TokenResponse {
        try await request([("grant_type", "refresh_token"), ("refresh_token", token)], now: now)
    }

    /// SMART Backend Services: a token for the client itself, with a signed assertion.
    func clientCredentials(scope: String, now: Date) async throws(ProviderSyncError) -> TokenResponse {
        try await request([("grant_type", "client_credentials"), ("scope", scope)], now: now)
    }

    private func request(_ grant: [(String, String)], now: Date) async throws(ProviderSyncError) -> TokenResponse {
        var fields = grant
        var headers: [(name: String, value: String)] = []
        switch client {
        case .publicClient:
            if let clientID { fields.append(("client_id", clientID)) }
        case .secret(let secret):
            // RFC 6749 §2.3.1: both halves form-encoded before base64.
            let pair = URL.formEncode(clientID ?? "") + ":" + URL.formEncode(secret)
            headers.append((name: "Authorization", value: "Basic " + Data(pair.utf8).base64EncodedString()))
        case .privateKey(let text, let keyID):
            let key: ClientSigningKey
            do { key = try ClientSigningKey(data: Data(text.utf8), keyID: keyID) } catch {
                throw .signIn("the client key cannot be used: \(error)")
            }
            let assertion: String
            do { assertion = try key.assertion(clientID: clientID ?? "", tokenEndpoint: url, now: now) } catch {
                throw .signIn("cannot sign the client assertion: \(error)")
            }
            fields.append(("client_assertion_type", ClientAssertion.assertionType))
            fields.append(("client_assertion", assertion))
            if let clientID { fields.append(("client_id", clientID)) }
        }
        let response = try await http.postForm(url, fields: fields, headers: headers)
        guard response.status == 200 else {
            let answer = OAuthErrorResponse(data: response.body)
            if let answer, answer.error == "invalid_grant" || answer.error == "invalid_client" && grant.first?.1 == "refresh_token" {
                throw .needsSignIn(provider: "", reason: answer.description ?? answer.error)
            }
            throw .tokenRefused(status: response.status, error: answer?.error ?? "no OAuth error", description: answer?.description)
        }
        let answer: TokenResponse
        do { answer = try TokenResponse(data: response.body) } catch {
            throw .tokenRefused(status: 200, error: "malformed answer", description: "\(error)")
        }
        // The token goes into an Authorization header: only RFC 6750's b64token characters, so a
        // hostile answer cannot add headers or lines to later requests.
        guard Self.isBearerToken(answer.accessToken) else {
            throw .tokenRefused(status: 200, error: "malformed answer", description: "the access token has characters a bearer token cannot have")
        }
        return answer
    }

    /// RFC 6750 §2.1 `b64token`: letters, digits, `-._~+/`, then `=` padding; at most 16 KiB.
    static func isBearerToken(_ token: String) -> Bool {
        let bytes = Array(token.utf8)
        guard !bytes.isEmpty, bytes.count <= 16 * 1024 else { return false }
        var padding = false
        for c in bytes {
            if c == 0x3D { padding = true; continue }
            let allowed = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || [0x2D, 0x2E, 0x5F, 0x7E, 0x2B, 0x2F].contains(c)
            if !allowed || padding { return false }
        }
        return bytes.first != 0x3D
    }
}
