import Foundation
import Hummingbird

/// Signing the person in and out.
///
/// The person proves who they are with the person token: `healthrecords serve` prints a
/// sign-in link holding it (`/login?token=…`) and reads it from `--person-token-file` or
/// `HEALTHRECORDS_PERSON_TOKEN` when given (else it is random per run). Signing in starts a
/// session cookie; the link's token leaves the address bar at once (303 to the page asked
/// for). Failed attempts slow down the address they come from (``FailureThrottle``): while an
/// address waits, no attempt from it is evaluated, right or wrong, so guesses from one address
/// are bounded by the backoff, not by how fast it can send. Nobody elsewhere can lock the person
/// out: another address, or a session the person's device already holds, still works. The
/// cookie is `Secure` with the `__Host-` prefix when the public URL is https.
struct LoginRoutes {
    let person: PersonAccess
    let failures: FailureThrottle
    let renderer: PageRenderer
    /// The token that signs the person in.
    let personToken: String
    let formLimit: Int

    func register(on router: Router<HealthRequestContext>) {
        router.get("/login") { request, context -> Response in
            let query = FormFields.parse(request.uri.query ?? "")
            var response: Response
            if let token = query["token"] {
                response = try await signIn(token: token, next: query["next"], from: context.clientAddress)
            } else {
                response = form(next: query["next"], error: nil)
            }
            PageHeaders.add(to: &response)
            return response
        }
        router.post("/login") { request, context -> Response in
            let form = try await FormFields.read(request, limit: formLimit)
            var response = try await signIn(token: form["token"] ?? "", next: form["next"], from: context.clientAddress)
            PageHeaders.add(to: &response)
            return response
        }
        router.post("/logout") { request, _ -> Response in
            let form = try await FormFields.read(request, limit: formLimit)
            guard let cookie = request.cookies[person.cookie.name]?.value, let session = await person.sessions.session(cookie: cookie) else {
                return PageRenderer.redirect("/login")
            }
            try PersonPages.checkForm(token: form["csrf"], session)
            try await person.sessions.end(cookie: cookie)
            var response = PageRenderer.redirect("/login")
            response.setCookie(person.cookie.cookie(value: "", maxAge: 0))
            return response
        }
    }

    private func signIn(token: String, next: String?, from address: String) async throws -> Response {
        // Checked before the token is: a throttled address learns nothing until it has waited.
        let keys = [ThrottleKey.address(address), .credential("person", from: address)]
        if let wait = failures.wait(keys) {
            var response = form(next: next, error: "Too many attempts from your network. Wait \(wait) seconds and try again.", status: .tooManyRequests)
            response.headers[.retryAfter] = String(wait)
            return response
        }
        guard SecretToken.equal(token, personToken) else {
            failures.fail(keys)
            return form(next: next, error: "That is not the sign-in token this server printed.", status: .unauthorized)
        }
        failures.succeed([keys[1]])
        let cookie = try await person.sessions.start()
        var response = PageRenderer.redirect(Self.safeNext(next))
        response.setCookie(person.cookie.cookie(value: cookie, maxAge: person.sessions.lifetimeSeconds))
        return response
    }

    private func form(next: String?, error: String?, status: HTTPResponse.Status = .ok) -> Response {
        Self.page(renderer, next: next, error: error, status: status)
    }

    /// The sign-in page: the token form, the passkey button (its script) and the recovery-code form.
    static func page(_ renderer: PageRenderer, next: String?, error: String?, status: HTTPResponse.Status = .ok) -> Response {
        var response = renderer.page(LoginPage(next: safeNext(next), error: error), session: nil, status: status)
        response.headers[.contentSecurityPolicy] = PageHeaders.passkeyScript
        return response
    }

    /// A path on this server to go to after signing in; anything else becomes `/`.
    ///
    /// The text is parsed as a URL and accepted only when it is a bare absolute path (and
    /// query): no scheme, no authority, no control characters, spaces or backslashes anywhere,
    /// and no second slash at the start. Browsers drop tabs and newlines and read `\` as `/`,
    /// so `/\t/evil.example` would otherwise become `//evil.example`, another site.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.utf8.count <= 2048, next.first == "/" else { return "/" }
        guard next.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "\\" }) else { return "/" }
        guard let components = URLComponents(string: next), components.scheme == nil, components.host == nil, components.user == nil,
            components.port == nil, components.fragment == nil, components.percentEncodedPath.hasPrefix("/"),
            !components.percentEncodedPath.hasPrefix("//")
        else { return "/" }
        // Percent-decoding must not produce a second slash or a control character either.
        let decoded = components.path
        guard !decoded.hasPrefix("//"), !decoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\\" }) else { return "/" }
        return next
    }
}

/// The sign-in page.
struct LoginPage: PageContent {
    static let template = "login"
    let title = "Sign in"
    let next: String
    let error: String?
    /// A server for many people: no token form, and the recovery form asks for the person's id.
    var many = false
}
