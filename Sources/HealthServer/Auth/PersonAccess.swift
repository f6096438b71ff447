import Hummingbird

/// How the person is recognised: their browser sessions and the cookie that carries one.
struct PersonAccess: Sendable {
    let sessions: PersonSessions
    let cookie: SessionCookie

    /// The live session a request's cookie names, if any.
    func session(_ request: Request) async -> PersonSession? {
        guard let value = request.cookies[cookie.name]?.value else { return nil }
        return await sessions.session(cookie: value)
    }
}
