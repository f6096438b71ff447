import HTTPTypes
import HealthStoreCore
import Hummingbird

/// Routes each request of a server for many people: `/p/<id>/…` to that person's server (the
/// prefix taken off), a browser whose session cookie names a person to theirs (sign-in pages
/// excepted), anything else to the front.
///
/// Nothing here grants anything: the person's server checks the session, token, code or link
/// against their own store alone, so a cookie, token or id of one person sent along another's
/// path or with another's prefix finds nothing (PeopleIsolationTests).
struct PeopleResponder: HTTPResponder {
    let front: any HTTPResponder<HealthRequestContext>
    let people: PersonServers
    let cookie: SessionCookie

    /// Paths the front answers even for a signed-in browser: signing in (again, perhaps as
    /// someone else of the household), and a proxy's switch to and from the person they act for.
    static let frontPaths: Set<String> = ["/login", "/login/passkey/options", "/login/passkey", "/login/recovery", "/act-for", "/act-for/stop"]

    func respond(to request: Request, context: HealthRequestContext) async throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/p/") {
            let rest = path.dropFirst(3)
            let id = String(rest.prefix { $0 != "/" })
            guard PersonEntry.isValidID(id) else { return Response(status: .notFound) }
            let open: PersonServers.Open
            do { open = try await people.server(id) } catch let error as PeopleServerError { return Self.failure(error) }
            var head = request.head
            let remainder = rest.dropFirst(id.count)
            head.path = (remainder.isEmpty ? "/" : String(remainder)) + (request.uri.query.map { "?" + $0 } ?? "")
            return try await open.responder.respond(to: Request(head: head, body: request.body), context: context)
        }
        if !Self.frontPaths.contains(path), let id = sessionPerson(request), let open = try? await people.server(id) {
            return try await open.responder.respond(to: request, context: context)
        }
        return try await front.respond(to: request, context: context)
    }

    /// The person a session cookie's value begins with (`<id>.`): only a hint of whose store to
    /// look in; their server checks the whole value.
    private func sessionPerson(_ request: Request) -> String? {
        guard let value = request.cookies[cookie.name]?.value, let dot = value.firstIndex(of: ".") else { return nil }
        let id = String(value[..<dot])
        return PersonEntry.isValidID(id) ? id : nil
    }

    private static func failure(_ error: PeopleServerError) -> Response {
        switch error {
        case .unknownPerson: Response(status: .notFound)
        case .storeUnavailable: Response(status: .serviceUnavailable, headers: [.retryAfter: "30"])
        }
    }
}
