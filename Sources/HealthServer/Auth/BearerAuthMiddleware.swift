import Hummingbird

/// Checks every app API and protected FHIR request (``AppAccess/authenticate(_:audience:facts:)``):
/// a live bearer token issued under the app's current access revision (else 401, with no
/// detail: a revocation, even from another process, voids it at once), then the app's rate
/// (else 429). Puts the app's view of the store, its access revision and what the token's scopes
/// reach in the context; handlers serve only what both the app's grants and the scopes admit.
struct BearerAuthMiddleware: RouterMiddleware {
    typealias Context = HealthRequestContext
    let access: AppAccess
    let audience: AppAccess.Audience

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let caller = try await access.authenticate(request.headers[.authorization], audience: audience, facts: context.facts)
        var context = context
        context.appView = caller.view
        context.accessRevision = caller.revision
        context.scopes = caller.scopes
        return try await next(request, context)
    }
}
