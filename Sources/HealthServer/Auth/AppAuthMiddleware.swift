import HealthStoreCore
import Hummingbird

/// Checks every app API request: a live bearer token from `POST /token` issued under the app's
/// current access revision (else 401, with no detail: a revocation, even from another process,
/// voids it at once), then the app's rate (else 429). Puts the app's view of the store in the
/// context.
struct AppAuthMiddleware: RouterMiddleware {
    typealias Context = HealthRequestContext
    let state: ServerState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], header.count > 7, header.prefix(7).lowercased() == "bearer " else {
            throw APIError.invalidToken
        }
        let token = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        let found: AccessTokens.Entry?
        do { found = try await state.tokens.entry(for: token) } catch { throw APIError.unavailable }
        // SMART tokens are for the FHIR API; the app API takes client-credentials tokens only.
        guard let entry = found, entry.scope == nil else { throw APIError.invalidToken }
        let appID = entry.appID
        switch await state.checkAccess(appID: appID, revision: entry.revision) {
        case .current: break
        case .revoked: throw APIError.invalidToken
        case .unavailable: throw APIError.unavailable
        }
        guard let view = await state.view(appID: appID) else { throw APIError.invalidToken }
        context.facts.appID = appID
        if let wait = state.appLimiter.take(appID) { throw APIError.rateLimited(retryAfterSeconds: wait) }
        var context = context
        context.appView = view
        context.accessRevision = entry.revision
        return try await next(request, context)
    }
}
