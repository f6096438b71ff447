import Foundation

/// The authorization request URL (response_type=code, client_id, redirect_uri, scope, state,
/// aud, code_challenge, code_challenge_method=S256), query appended to the endpoint's own query.
///
/// Built in one place so every sign-in sends PKCE S256 and `aud` (SMART requires `aud` so a
/// token is never issued for a server other than the one the app means to call), with every
/// value percent-encoded: a `+` in a scope or an `&` in a redirect URI cannot change the request.
public struct AuthorizationRequest: Sendable, Hashable {
    /// The server's `authorization_endpoint`.
    public let endpoint: URL
    /// The registered client id.
    public let clientID: String
    /// The registered redirect URI, sent exactly as registered.
    public let redirectURI: String
    /// The space-separated scopes asked for.
    public let scope: String
    /// The `state` the callback must echo (see ``AuthorizationSecrets/state()``).
    public let state: String
    /// The FHIR base URL the token is for (`aud`).
    public let audience: String
    /// The PKCE verifier kept for the token request; only its S256 challenge is sent.
    public let codeVerifier: String

    /// A request; nothing is checked here (the endpoint comes from ``SMARTConfiguration``).
    public init(endpoint: URL, clientID: String, redirectURI: String, scope: String, state: String, audience: String, codeVerifier: String) {
        self.endpoint = endpoint
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scope = scope
        self.state = state
        self.audience = audience
        self.codeVerifier = codeVerifier
    }

    /// The query parameters, in the order sent.
    public var parameters: [(name: String, value: String)] {
        [
            ("response_type", "code"),
            ("client_id", clientID),
            ("redirect_uri", redirectURI),
            ("scope", scope),
            ("state", state),
            ("aud", audience),
            ("code_challenge", PKCE.challenge(for: codeVerifier)),
            ("code_challenge_method", "S256"),
        ]
    }

    /// The URL to open in the user's browser. The endpoint's own query (some servers put a
    /// tenant there) is kept in front; its fragment is dropped, as RFC 6749 §3.1 forbids one.
    public var url: URL {
        let ours = FormEncoding.encode(parameters.map { ($0.name, $0.value) })
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: true) else {
            return URL(string: endpoint.absoluteString + (endpoint.query == nil ? "?" : "&") + ours) ?? endpoint
        }
        components.fragment = nil
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + ours
        } else {
            components.percentEncodedQuery = ours
        }
        return components.url ?? endpoint
    }
}
