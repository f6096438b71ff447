import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary
import Hummingbird
import SMARTAuthorization

/// The SMART grants at `/token`: `authorization_code` (single use, a minute, bound to the client,
/// the redirect URI and the PKCE verifier) and `refresh_token` (single use: each use rotates it;
/// using a spent one ends every token of its grant — someone else has a copy).
///
/// Access tokens last at most an hour (``ServerConfiguration/accessTokenLifetime``). A refresh
/// token comes only with `offline_access`, and an id token (ES256, keys at the JWKS URL) only
/// with `openid` and `fhirUser`. Every answer is `Cache-Control: no-store`.
struct SMARTTokenGrants {
    let server: AuthorizationServer

    /// Refresh tokens outlive the person's session: 90 days unless used.
    static let refreshLifetime: TimeInterval = 90 * 24 * 3600

    func authorizationCode(_ form: FormFields, _ request: Request, _ context: HealthRequestContext) async throws -> Response {
        let app = try await ClientAuthentication(server: server).authenticate(form, request, context)
        guard let code = form["code"], form.all("code").count == 1 else { throw OAuthError.invalidRequest("code is required") }
        guard let verifier = form["code_verifier"] else { throw OAuthError.invalidRequest("code_verifier is required (PKCE)") }
        let stored: StoredCredential
        switch try await server.store.useCredential(.authorizationCode, digest: SecretToken.digest(code)) {
        case .missing: throw OAuthError.invalidGrant("the code is not valid")
        case .replayed(let spent):
            // A code used twice: end what the first use got (RFC 6749 §4.1.2).
            _ = try await server.store.deleteCredentials(family: spent.family)
            throw OAuthError.invalidGrant("the code was used before")
        case .used(let c): stored = c
        }
        guard stored.appID == app.registration.id, let parameters = AuthorizationParameters(json: stored.details) else {
            throw OAuthError.invalidGrant("the code was issued to another client")
        }
        guard stored.expires > server.clock.now else { throw OAuthError.invalidGrant("the code expired") }
        guard form["redirect_uri"] == parameters.redirectURI else { throw OAuthError.invalidGrant("redirect_uri differs from the authorization request's") }
        guard PKCE.verify(verifier: verifier, challenge: parameters.codeChallenge) else { throw OAuthError.invalidGrant("the code_verifier does not match the code_challenge") }
        let scopes: ScopeRequest
        do { scopes = try ScopeRequest(parsing: parameters.scope).granted } catch { throw OAuthError.invalidGrant("the code's scope is damaged") }
        return try await issue(
            app: app, scopes: scopes, family: stored.family, nonce: parameters.nonce, withIDToken: true, atSharedBase: parameters.atSharedBase)
    }

    func refreshToken(_ form: FormFields, _ request: Request, _ context: HealthRequestContext) async throws -> Response {
        let app = try await ClientAuthentication(server: server).authenticate(form, request, context)
        guard let token = form["refresh_token"], form.all("refresh_token").count == 1 else { throw OAuthError.invalidRequest("refresh_token is required") }
        let digest = SecretToken.digest(token)
        // Checked before it is spent, so a refused request (a wider scope) costs the app nothing.
        guard let stored = try await server.store.credential(.refreshToken, digest: digest) else { throw OAuthError.invalidGrant("the refresh token is not valid") }
        guard stored.appID == app.registration.id else { throw OAuthError.invalidGrant("the refresh token was issued to another client") }
        guard stored.expires > server.clock.now, let o = (try? JSONReader().read(stored.details))?.objectValue, let granted = o.string("scope"),
            let revision = o["revision"]?.numberValue?.intValue
        else { throw OAuthError.invalidGrant("the refresh token expired") }
        var scopes: ScopeRequest
        do { scopes = try ScopeRequest(parsing: granted) } catch { throw OAuthError.invalidGrant("the refresh token's scope is damaged") }
        if let asked = form["scope"], !stored.spent {
            let narrower: ScopeRequest
            do { narrower = try ScopeRequest(parsing: asked) } catch { throw OAuthError.invalidScope(error.description) }
            guard narrower.isNarrowing(of: scopes) else { throw OAuthError.invalidScope("the scope asked for is wider than the one granted") }
            scopes = narrower.granted
        }
        switch try await server.store.useCredential(.refreshToken, digest: digest) {
        case .missing: throw OAuthError.invalidGrant("the refresh token is not valid")
        case .replayed(let spent):
            // A spent refresh token used again: someone holds a copy. End every token of its grant.
            _ = try await server.store.deleteCredentials(family: spent.family)
            throw OAuthError.invalidGrant("the refresh token was used before; every token of its grant is revoked")
        case .used: break
        }
        guard revision == app.accessRevision else { throw OAuthError.invalidGrant("the person revoked this app's access") }
        return try await issue(app: app, scopes: scopes, family: stored.family, nonce: nil, withIDToken: false, atSharedBase: false)
    }

    /// Issues an access token (and a refresh token, an id token) for a grant. An id token of a
    /// grant made at the shared base names that base and is signed with its key.
    private func issue(
        app: StoredApp, scopes: ScopeRequest, family: Data, nonce: String?, withIDToken: Bool, atSharedBase: Bool
    ) async throws -> Response {
        await server.purgeExpiredCredentials()
        let patient = try await server.store.personPatientID()
        let scope = scopes.text
        let (access, expiresIn) = try await server.tokens.issue(
            appID: app.registration.id, revision: app.accessRevision, family: family, scope: scope, patient: patient)
        var members: [(String, EncodedJSON)] = [
            ("access_token", .string(access)), ("token_type", .string("Bearer")), ("expires_in", .int(expiresIn)), ("scope", .string(scope)),
            ("patient", .string(patient)),
        ]
        if scopes.asksForOfflineAccess || scopes.contains(.onlineAccess) {
            let refresh = server.tokens.prefix + SecretToken.make()
            let details = JSONWriter.minified(.object(JSONObject([
                "scope": .string(scope), "revision": .number(JSONNumber(app.accessRevision)),
            ])))
            _ = try await server.store.insertCredential(
                StoredCredential(
                    kind: .refreshToken, digest: SecretToken.digest(refresh), appID: app.registration.id, family: family,
                    expires: server.clock.now.addingTimeInterval(Self.refreshLifetime), details: Data(details)))
            members.append(("refresh_token", .string(refresh)))
        }
        if withIDToken, scopes.asksForIDToken {
            let endpoints = atSharedBase ? server.shared?.endpoints ?? server.endpoints : server.endpoints
            let now = server.clock.now
            let claims = IDTokenClaims(
                issuer: endpoints.issuer, subject: patient, audience: app.registration.id, expiresAt: now.addingTimeInterval(TimeInterval(expiresIn)),
                issuedAt: now, fhirUser: endpoints.fhirBase + "/Patient/" + patient, nonce: nonce)
            members.append(("id_token", .string(try await server.idTokenSigner(atSharedBase: atSharedBase).sign(claims))))
        }
        var response = JSONResponse.make(.object(members))
        response.headers[HeaderName.pragma] = "no-cache"
        return response
    }
}
