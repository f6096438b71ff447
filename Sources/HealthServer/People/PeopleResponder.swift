import Foundation
import HTTPTypes
import HealthStoreCore
import Hummingbird

/// Routes each request of a server for many people: `/p/<id>/…` to that person's server (the
/// prefix taken off); at the shared SMART base (``SharedSMARTBase``), a FHIR request to the
/// person its bearer token names and a `/token`, `/revoke` or `/introspect` form to the person
/// its code or token names; a browser whose session cookie names a person to theirs (sign-in
/// pages excepted); anything else to the front.
///
/// Nothing here grants anything: the person's server checks the session, token, code or link
/// against their own store alone, so a cookie, token or id of one person sent along another's
/// path or with another's prefix finds nothing (PeopleIsolationTests).
struct PeopleResponder: HTTPResponder {
    let front: any HTTPResponder<HealthRequestContext>
    let people: PersonServers
    let cookie: SessionCookie
    /// The largest form read at the shared base's `/token`, `/revoke` and `/introspect`.
    let bodyLimit: Int

    /// Paths the front answers even for a signed-in browser: signing in (again, perhaps as
    /// someone else of the household), and a proxy's switch to and from the person they act for.
    static let frontPaths: Set<String> = [
        "/login", "/login/passkey/options", "/login/passkey", "/login/recovery", "/act-for", "/act-for/stop",
        // The shared SMART base's own documents, whoever asks.
        "/.well-known/smart-configuration", "/fhir/.well-known/smart-configuration", "/fhir/metadata", "/.well-known/jwks.json",
    ]

    /// The shared base's forms that carry a code or token naming their person.
    static let grantPaths: Set<String> = ["/token", "/revoke", "/introspect"]

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
        if Self.frontPaths.contains(path) { return try await front.respond(to: request, context: context) }
        if path == "/fhir" || path.hasPrefix("/fhir/") {
            return try await atSharedBase(request, context, person: Self.bearer(request).flatMap(PersonPrefix.person(of:)))
        }
        if Self.grantPaths.contains(path), request.method == .post {
            var request = request
            let body = try await request.collectBody(upTo: bodyLimit)
            let form = FormFields.parse(String(buffer: body))
            let credential = form["code"] ?? form["refresh_token"] ?? form["token"]
            return try await atSharedBase(request, context, person: credential.flatMap(PersonPrefix.person(of:)))
        }
        // Only a hint of whose store to look in; their server checks the whole value.
        if let value = request.cookies[cookie.name]?.value, let id = PersonPrefix.person(of: value), let open = try? await people.server(id) {
            return try await open.responder.respond(to: request, context: context)
        }
        return try await front.respond(to: request, context: context)
    }

    /// A request at the shared base: to the server of the person its credential names, marked
    /// as having come there; to the front when it names nobody.
    private func atSharedBase(_ request: Request, _ context: HealthRequestContext, person: String?) async throws -> Response {
        guard let person else { return try await front.respond(to: request, context: context) }
        let open: PersonServers.Open
        do { open = try await people.server(person) } catch let error as PeopleServerError {
            // Nobody of that id: the credential is one nobody issued.
            if case .unknownPerson = error { return try await front.respond(to: request, context: context) }
            return Self.failure(error)
        }
        var context = context
        context.atSharedBase = true
        return try await open.responder.respond(to: request, context: context)
    }

    /// The token of an `Authorization: Bearer` header.
    private static func bearer(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        return String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }

    private static func failure(_ error: PeopleServerError) -> Response {
        switch error {
        case .unknownPerson: Response(status: .notFound)
        case .storeUnavailable: Response(status: .serviceUnavailable, headers: [.retryAfter: "30"])
        }
    }
}
