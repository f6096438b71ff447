import Foundation
import HealthStoreCore
import Hummingbird

/// Guards the person's pages: a live session cookie, else a redirect to the sign-in page
/// (GET) or 403 (forms). Adds the headers every page carries: no caching, no framing (a
/// consent page inside another site's frame could be clicked through), no referrer, and a
/// content security policy that allows no script at all.
struct PersonAuthMiddleware: RouterMiddleware {
    typealias Context = HealthRequestContext
    let person: PersonAccess
    let renderer: PageRenderer
    /// Where what a proxy does is recorded for the person to see.
    let proxyLog: any HouseholdStorage
    let clock: HealthClock

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        if let session = await person.session(request) {
            var context = context
            context.session = session
            if let proxy = session.proxy {
                // Recorded before the page runs: an action that fails half-way was still attempted.
                try await proxyLog.recordProxyAction(
                    ProxyAction(actorID: proxy.id, actorName: proxy.name, action: request.method.rawValue + " " + request.uri.path, date: clock.now))
            }
            do { response = try await next(request, context) } catch let error as any HTTPResponseError {
                response = try error.response(from: request, context: context)
            }
        } else if request.method == .get || request.method == .head {
            let target = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
            response = PageRenderer.redirect("/login?next=" + FormFields.encode(target))
        } else {
            response = renderer.page(
                MessagePage(title: "Signed out", message: "Your session has ended. Sign in again and repeat what you were doing."), session: nil,
                status: .forbidden)
        }
        PageHeaders.add(to: &response)
        return response
    }
}

/// Keeps a proxy out of what only the person may see or change: their passkeys, recovery codes
/// and who may act for them (403, and the attempt is in the person's log like every other).
struct PersonOnlyMiddleware: RouterMiddleware {
    typealias Context = HealthRequestContext
    let renderer: PageRenderer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.session?.proxy == nil else {
            var response = renderer.page(
                MessagePage(title: "Not for a proxy", message: "Only the person can see or change their passkeys, recovery codes and household."),
                session: context.session, status: .forbidden)
            PageHeaders.add(to: &response)
            return response
        }
        return try await next(request, context)
    }
}
