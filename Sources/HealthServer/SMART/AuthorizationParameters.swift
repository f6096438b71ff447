import FHIR
import Foundation
import HealthStoreCore
import SMARTAuthorization

/// A checked SMART authorization request (`/authorize`), RFC 6749 §4.1.1 with PKCE and SMART's
/// `aud`. It is kept in the store while the person answers the consent page, so a restart
/// in between loses nothing.
struct AuthorizationParameters: Sendable, Equatable {
    let clientID: String
    let redirectURI: String
    let scope: String
    let state: String
    let codeChallenge: String
    let nonce: String?
    /// Whether `aud` named the shared SMART base of a server for many people (``SharedSMARTBase``)
    /// rather than this person's own.
    let atSharedBase: Bool

    /// What is wrong with an authorization request.
    enum Failure: Error, Equatable {
        /// The client or redirect URI cannot be trusted: tell the person, never redirect (RFC 6749 §4.1.2.1).
        case unsafe(String)
        /// Send the browser back to the app with `error` (and the app's `state`).
        case redirect(error: String, description: String, state: String?)
    }

    /// Whether a redirect URI is a registered one: exactly, or — for a loopback IP literal
    /// registered without a port — on any port, as RFC 8252 §7.3 asks of servers so native apps
    /// can listen on whatever port is free.
    static func matches(registered: URL, _ redirect: String) -> Bool {
        if registered.absoluteString == redirect { return true }
        guard registered.scheme == "http", registered.port == nil, ["127.0.0.1", "[::1]", "::1"].contains(registered.host ?? ""),
            var given = URLComponents(string: redirect), given.scheme == "http", given.port != nil, given.user == nil, given.password == nil
        else { return false }
        given.port = nil
        return given.string == registered.absoluteString
    }

    /// Checks the request's fields against the registered app and this server's FHIR base (or
    /// the shared base of a server for many people, when there is one).
    static func check(
        _ fields: FormFields, app: AppRegistration?, endpoints: SMARTEndpoints, shared: SMARTEndpoints? = nil
    ) throws(Failure) -> AuthorizationParameters {
        func one(_ name: String) throws(Failure) -> String? {
            let values = fields.all(name)
            guard values.count <= 1 else { throw .unsafe("the parameter \(name) is given more than once") }
            return values.first
        }
        guard let clientID = try one("client_id"), !clientID.isEmpty else { throw .unsafe("the request names no client_id") }
        guard let app else { throw .unsafe("no app is registered with this client_id") }
        guard let redirect = try one("redirect_uri"), !redirect.isEmpty else { throw .unsafe("the request names no redirect_uri") }
        guard app.redirectURIs.contains(where: { matches(registered: $0, redirect) }) else {
            throw .unsafe("the redirect_uri is not one registered for \(app.name)")
        }
        let state = try one("state")
        func refuse(_ error: String, _ description: String) -> Failure { .redirect(error: error, description: description, state: state) }
        for name in ["response_type", "scope", "aud", "code_challenge", "code_challenge_method", "nonce"] where fields.all(name).count > 1 {
            throw refuse("invalid_request", "the parameter \(name) is given more than once")
        }
        guard fields["response_type"] == "code" else { throw refuse("unsupported_response_type", "response_type must be code") }
        guard let state, !state.isEmpty else { throw refuse("invalid_request", "state is required") }
        guard let method = fields["code_challenge_method"] else { throw refuse("invalid_request", "PKCE is required: code_challenge_method=S256") }
        guard method == "S256" else { throw refuse("invalid_request", "code_challenge_method must be S256 (plain is refused)") }
        guard let challenge = fields["code_challenge"], PKCE.isValidChallenge(challenge) else {
            throw refuse("invalid_request", "code_challenge must be the base64url SHA-256 of the verifier (43 characters)")
        }
        guard let aud = fields["aud"] else { throw refuse("invalid_request", "aud is required: the FHIR base URL \(endpoints.fhirBase)") }
        let atSharedBase = shared?.isAudience(aud) ?? false
        guard endpoints.isAudience(aud) || atSharedBase else {
            throw refuse("invalid_request", "aud must be this server's FHIR base URL \(shared?.fhirBase ?? endpoints.fhirBase)")
        }
        guard let scope = fields["scope"], !scope.trimmingCharacters(in: .whitespaces).isEmpty else { throw refuse("invalid_scope", "scope is required") }
        return AuthorizationParameters(
            clientID: clientID, redirectURI: redirect, scope: scope, state: state, codeChallenge: challenge, nonce: fields["nonce"],
            atSharedBase: atSharedBase)
    }

    /// The JSON kept with the pending request and with the code.
    var json: Data {
        var members = [
            JSONMember("clientID", .string(clientID)), JSONMember("redirectURI", .string(redirectURI)), JSONMember("scope", .string(scope)),
            JSONMember("state", .string(state)), JSONMember("codeChallenge", .string(codeChallenge)),
        ]
        if let nonce { members.append(JSONMember("nonce", .string(nonce))) }
        if atSharedBase { members.append(JSONMember("shared", .bool(true))) }
        return Data(JSONWriter.minified(.object(JSONObject(members))))
    }

    /// Reads ``json`` back; `nil` when damaged.
    init?(json: Data) {
        guard let o = (try? JSONReader().read(json))?.objectValue, let clientID = o.string("clientID"), let redirectURI = o.string("redirectURI"),
            let scope = o.string("scope"), let state = o.string("state"), let challenge = o.string("codeChallenge")
        else { return nil }
        self.init(
            clientID: clientID, redirectURI: redirectURI, scope: scope, state: state, codeChallenge: challenge, nonce: o.string("nonce"),
            atSharedBase: o["shared"]?.boolValue ?? false)
    }

    init(clientID: String, redirectURI: String, scope: String, state: String, codeChallenge: String, nonce: String?, atSharedBase: Bool = false) {
        self.atSharedBase = atSharedBase
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scope = scope
        self.state = state
        self.codeChallenge = codeChallenge
        self.nonce = nonce
    }

    /// The redirect URI with query items added (the code or the error, and the state).
    static func redirect(_ uri: String, _ items: [(String, String?)]) -> String {
        guard var c = URLComponents(string: uri) else { return uri }
        c.queryItems = (c.queryItems ?? []) + items.compactMap { k, v in v.map { URLQueryItem(name: k, value: $0) } }
        // `+` is a space in forms; encode it so the app reads its state back exactly.
        c.percentEncodedQuery = c.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return c.string ?? uri
    }
}
