import Foundation
import Hummingbird

/// Signing the person in and out.
///
/// The person proves who they are with the person token: `healthrecords serve` prints a
/// sign-in link holding it (`/login?token=…`) and reads it from `--person-token-file` or
/// `HEALTHRECORDS_PERSON_TOKEN` when given (else it is random per run). Signing in starts a
/// session cookie; the link's token leaves the address bar at once (303 to the page asked
/// for). Failed attempts share one token bucket (refilled at one a second), so the token
/// cannot be guessed at speed.
struct LoginRoutes {
    let state: ServerState

    func register(on router: Router<HealthRequestContext>) {
        router.get("/login") { request, _ -> Response in
            let query = FormFields.parse(request.uri.query ?? "")
            var response: Response
            if let token = query["token"] {
                response = signIn(token: token, next: query["next"])
            } else {
                response = form(next: query["next"], error: nil)
            }
            PageHeaders.add(to: &response)
            return response
        }
        router.post("/login") { request, _ -> Response in
            let form = try await FormFields.read(request, limit: state.configuration.limits.maxBodyBytes)
            var response = signIn(token: form["token"] ?? "", next: form["next"])
            PageHeaders.add(to: &response)
            return response
        }
        router.post("/logout") { request, _ -> Response in
            let form = try await FormFields.read(request, limit: state.configuration.limits.maxBodyBytes)
            guard let cookie = request.cookies[PersonSessions.cookieName]?.value, let session = state.sessions.session(cookie: cookie) else {
                return PageRenderer.redirect("/login")
            }
            try form.checkCSRF(session)
            state.sessions.end(cookie: cookie)
            var response = PageRenderer.redirect("/login")
            response.setCookie(Cookie(name: PersonSessions.cookieName, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .lax))
            return response
        }
    }

    private func signIn(token: String, next: String?) -> Response {
        if state.authFailures.take("login-check") != nil {
            return form(next: next, error: "Too many attempts. Wait a minute and try again.", status: .tooManyRequests)
        }
        guard SecretToken.equal(token, state.configuration.personToken) else {
            return form(next: next, error: "That is not the sign-in token this server printed.", status: .unauthorized)
        }
        state.authFailures.refund("login-check")
        let cookie = state.sessions.start()
        var response = PageRenderer.redirect(Self.safeNext(next))
        response.setCookie(
            Cookie(name: PersonSessions.cookieName, value: cookie, maxAge: state.sessions.lifetimeSeconds, path: "/", httpOnly: true, sameSite: .lax))
        return response
    }

    private func form(next: String?, error: String?, status: HTTPResponse.Status = .ok) -> Response {
        var values: [String: Any] = ["title": "Sign in", "next": Self.safeNext(next)]
        if let error { values["error"] = error }
        return state.pages.page("login", values, status: status)
    }

    /// A local path to go to after signing in; anything else becomes `/`.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\"), !next.contains("\r"), !next.contains("\n") else { return "/" }
        return next
    }
}
