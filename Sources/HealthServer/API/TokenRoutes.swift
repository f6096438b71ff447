import Foundation
import HealthStoreCore
import Hummingbird

/// `POST /token`: OAuth2 client credentials (RFC 6749 §4.4) for the app API, and SMART's
/// authorization-code and refresh-token grants (``SMARTTokenGrants``). For client credentials
/// the client id and secret come in the form body or in HTTP Basic authentication; the answer
/// is a bearer token kept in the store as a digest (see ``AccessTokens``).
struct TokenRoutes {
    let server: AuthorizationServer

    func register(on router: Router<HealthRequestContext>) {
        router.post("/token") { request, context -> Response in
            let form = try await FormFields.read(request, limit: server.maxBodyBytes)
            guard form.all("grant_type").count <= 1 else { throw OAuthError.invalidRequest("grant_type is given more than once") }
            switch form["grant_type"] {
            case "authorization_code": return try await SMARTTokenGrants(server: server).authorizationCode(form, request, context)
            case "refresh_token": return try await SMARTTokenGrants(server: server).refreshToken(form, request, context)
            case "client_credentials": break
            case nil: throw APIError.invalidRequest("grant_type is required")
            default: throw APIError.unsupportedGrantType
            }
            var id = form["client_id"]
            var secret = form["client_secret"]
            if let (basicID, basicSecret) = Self.basic(request.headers[.authorization]) {
                id = basicID
                secret = basicSecret
            }
            guard let id, let secret, !id.isEmpty, !secret.isEmpty else { throw APIError.invalidClient }
            // Only apps that hold a secret use this grant; SMART clients use authorization codes.
            // The right secret always works, so no one can lock an app out (not even from its own
            // proxy's address). Wrong ones back off per source address, and per client id from
            // that address; a client id counts only once it names a registered app, so
            // unauthenticated input never makes keys of its own (see FailureThrottle).
            let address = ThrottleKey.address(context.clientAddress)
            let credential = ThrottleKey.credential("client\u{0}" + id, from: context.clientAddress)
            let app = try? await server.store.app(id: id)
            guard let app, app.registration.clientType == .confidentialSymmetric, app.verify(secret: secret) else {
                if let wait = server.failures.wait([address, credential]) { throw APIError.rateLimited(retryAfterSeconds: wait) }
                server.failures.fail(app == nil ? [address] : [address, credential])
                throw APIError.invalidClient
            }
            // The address keeps its count: one valid credential must not clear others' failures.
            server.failures.succeed([credential])
            let (token, expiresIn) = try await server.tokens.issue(appID: app.registration.id, revision: app.accessRevision)
            var response = JSONResponse.make(.object([
                ("access_token", .string(token)), ("token_type", .string("Bearer")), ("expires_in", .int(expiresIn)),
            ]))
            response.headers[HeaderName.pragma] = "no-cache"
            return response
        }
    }

    /// The client id and secret of a Basic authorization header (form-encoded parts, RFC 6749 §2.3.1).
    static func basic(_ header: String?) -> (String, String)? {
        guard let header, header.count > 6, header.prefix(6).lowercased() == "basic " else { return nil }
        guard let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        let decode = { (s: Substring) in s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s) }
        return (decode(text[..<colon]), decode(text[text.index(after: colon)...]))
    }
}
