import ClinicalRecords
import HealthStoreCore
import Hummingbird

/// Who a FHIR request's bearer token stands for: the app, the access revision the token was
/// issued under, and what its scopes reach (`nil`: not narrowed by scopes).
struct FHIRAccess: Sendable, Equatable {
    /// The app's id.
    let appID: String
    /// The app's access revision when the token was issued; a revocation moves it on.
    let revision: Int
    /// What the token's scopes reach; `nil` for a token without scopes.
    let scopes: TokenScopes?
}

/// Checks every protected FHIR request: a live bearer token (else 401 as an OperationOutcome,
/// with `WWW-Authenticate: Bearer`), issued under the app's current access revision, then the
/// app's rate (else 429). Puts the app's view of the store and what the token's scopes reach in
/// the context; handlers serve only what both the app's grants and the scopes admit.
struct FHIRAccessMiddleware: RouterMiddleware {
    typealias Context = HealthRequestContext
    let state: ServerState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], header.count > 7, header.prefix(7).lowercased() == "bearer " else {
            throw APIError.invalidToken
        }
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        guard let access = try await Self.access(for: token, state: state) else { throw APIError.invalidToken }
        switch await state.checkAccess(appID: access.appID, revision: access.revision) {
        case .current: break
        case .revoked: throw APIError.invalidToken
        case .unavailable: throw APIError.unavailable
        }
        guard let view = await state.view(appID: access.appID) else { throw APIError.invalidToken }
        context.facts.appID = access.appID
        if let wait = state.appLimiter.take(access.appID) { throw APIError.rateLimited(retryAfterSeconds: wait) }
        var context = context
        context.appView = view
        context.accessRevision = access.revision
        context.scopes = access.scopes
        return try await next(request, context)
    }

    /// The access a bearer token grants, or `nil` for an unknown, expired or revoked token: the
    /// one place FHIR requests look tokens up. SMART access tokens carry the scope they were
    /// granted, read here; the app API's client-credentials tokens are not narrowed by scopes.
    static func access(for token: String, state: ServerState) async throws -> FHIRAccess? {
        let entry: AccessTokens.Entry?
        do { entry = try await state.tokens.entry(for: token) } catch { throw APIError.unavailable }
        guard let entry else { return nil }
        return FHIRAccess(appID: entry.appID, revision: entry.revision, scopes: entry.scope.map(TokenScopes.init(scope:)))
    }
}
