import Crypto
import FHIR
import Foundation
import HealthStoreCore
import Hummingbird
import SMARTAuthorization

/// Who is calling the token, revocation or introspection endpoint, by SMART's client types:
/// a public client names itself (`client_id`, no secret); a symmetric client sends its secret
/// in HTTP Basic (`client_secret_basic`; the form is also read, for the client-credentials API);
/// an asymmetric client sends a signed assertion (`private_key_jwt`, ES384 or RS384), whose
/// `jti` is refused the second time.
struct ClientAuthentication {
    let server: AuthorizationServer

    /// The app that authenticated; wrong credentials back off per address and client.
    func authenticate(_ form: FormFields, _ request: Request, _ context: HealthRequestContext) async throws(OAuthError) -> StoredApp {
        for name in ["client_id", "client_secret", "client_assertion", "client_assertion_type"] where form.all(name).count > 1 {
            throw .invalidRequest("the parameter \(name) is given more than once")
        }
        let basic = TokenRoutes.basic(request.headers[.authorization])
        let claimed: String?
        if let basic {
            claimed = basic.0
        } else if let assertion = form["client_assertion"] {
            claimed = form["client_id"] ?? (try? ClientAssertion.claimedClientID(assertion))
        } else {
            claimed = form["client_id"]
        }
        guard let claimed, !claimed.isEmpty else { throw .invalidClient("the request does not say which client it is") }
        if let id = form["client_id"], id != claimed { throw .invalidClient("client_id does not match the client's credentials") }
        let address = ThrottleKey.address(context.clientAddress)
        let key = ThrottleKey.credential("client\u{0}" + claimed, from: context.clientAddress)
        let app: StoredApp?
        do { app = try await server.store.app(id: claimed) } catch { throw .serverError }
        do throws(OAuthError) {
            guard let app else { throw .invalidClient("no such client") }
            // A client whose keys are at a URL costs a fetch to check: while its address (or it,
            // from there) backs off, nothing is fetched and nothing is checked.
            if app.registration.jwksURI != nil, let wait = server.failures.wait([address, key]) { throw .slowDown(retryAfterSeconds: wait) }
            try await check(app, form: form, basic: basic, tokenEndpoint: server.endpoints(context).token)
            server.failures.succeed([key])
            return app
        } catch {
            if case .serverError = error { throw error }
            if let wait = server.failures.wait([address, key]) { throw .slowDown(retryAfterSeconds: wait) }
            server.failures.fail(app == nil ? [address] : [address, key])
            throw error
        }
    }

    private func check(_ app: StoredApp, form: FormFields, basic: (String, String)?, tokenEndpoint: String) async throws(OAuthError) {
        let registration = app.registration
        switch registration.clientType {
        case .public:
            guard basic == nil, form["client_secret"] == nil, form["client_assertion"] == nil else {
                throw .invalidClient("a public client sends no credentials")
            }
        case .confidentialSymmetric:
            guard let secret = basic?.1 ?? form["client_secret"], app.verify(secret: secret) else {
                throw .invalidClient("the client secret is wrong or missing")
            }
        case .confidentialAsymmetric:
            guard basic == nil, form["client_assertion_type"] == ClientAssertion.assertionType, let assertion = form["client_assertion"] else {
                throw .invalidClient("this client authenticates with a signed client assertion (private_key_jwt)")
            }
            let keys = try await keySet(registration, kid: ClientAssertion.claimedKeyID(assertion))
            let verified: VerifiedAssertion
            do {
                verified = try ClientAssertion.verify(assertion, clientID: registration.id, tokenEndpoint: tokenEndpoint, keys: keys, now: server.clock.now)
            } catch { throw .invalidClient("the client assertion was refused: \(error.description)") }
            let seen = Data(SHA256.hash(data: Data((registration.id + "\u{0}" + verified.jti).utf8)))
            let fresh: Bool
            do {
                fresh = try await server.store.insertCredential(
                    StoredCredential(kind: .assertionID, digest: seen, appID: registration.id, family: seen, expires: verified.exp, details: Data("{}".utf8)))
            } catch { throw .serverError }
            guard fresh else { throw .invalidClient("the client assertion's jti was used before") }
        }
    }

    /// The client's registered keys, or those at its JWKS URL (kept between requests). Why a
    /// URL's keys could not be had goes to the log only: the answer would tell anyone who asks
    /// what the server can reach.
    private func keySet(_ app: AppRegistration, kid: String?) async throws(OAuthError) -> ClientKeySet {
        if let jwks = app.jwks {
            do { return try ClientKeySet(json: jwks) } catch { throw .invalidClient("the client's key set is unusable: \(error)") }
        }
        guard let url = app.jwksURI else { throw .invalidClient("the client registered no keys") }
        switch await server.keySets.keys(at: url, kid: kid) {
        case .success(let keys): return keys
        case .failure(let unavailable):
            server.logger.warning("client keys unavailable", metadata: ["app": "\(app.id)", "detail": "\(unavailable.detail)"])
            throw .invalidClient("the client's keys could not be obtained")
        }
    }
}
