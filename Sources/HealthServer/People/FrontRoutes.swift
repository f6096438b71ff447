import ByteEncodings
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary
import Hummingbird
import WebAuthn

/// The front of a server for many people: what is served before anyone is known — the sign-in
/// page, passkey sign-in (whose passkey answers names the person: its user handle is their id),
/// recovery codes (with the id printed beside them), health checks and static files.
///
/// A sign-in opens the person's server and starts a session in *their* store, whose cookie
/// value begins with their id; from then on ``PeopleResponder`` sends that browser's page
/// requests to their server. Failures are throttled by address and credential as on the
/// person's own sign-in page, in the one throttle every person's server shares.
struct FrontRoutes {
    let people: PersonServers
    let challenges: SignInChallenges
    let failures: FailureThrottle
    let renderer: PageRenderer
    let address: ServerAddress
    let bodyLimit: Int
    let clock: HealthClock

    func register(on router: Router<HealthRequestContext>) {
        PublicRoutes(renderer: renderer).register(on: router)
        let script = renderer.passkeyScript
        router.get("/static/passkeys.js") { _, _ -> Response in
            var response = Response(
                status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "max-age=3600"], body: ResponseBody(byteBuffer: script))
            response.headers[HeaderName.contentTypeOptions] = "nosniff"
            return response
        }
        router.get("/") { _, _ in PageRenderer.redirect("/login") }
        router.get("/login") { request, _ -> Response in
            var response = page(next: FormFields.parse(request.uri.query ?? "")["next"], error: nil)
            PageHeaders.add(to: &response)
            return response
        }
        router.post("/login/passkey/options") { _, _ -> Response in
            guard let rpID = relyingPartyID else { return PasskeyRoutes.error(.noRelyingParty) }
            let challenge = challenges.make(now: clock.now)
            return JSONResponse.make(
                .object([
                    ("challenge", .string(Base64URL.encode(challenge))), ("rpId", .string(rpID)),
                    ("timeout", .int(Int(PasskeyCeremonies.challengeLifetime * 1000))), ("userVerification", .string("required")),
                    ("allowCredentials", .array([])),
                ]))
        }
        router.post("/login/passkey") { request, context -> Response in
            let keys = [ThrottleKey.address(context.clientAddress), .credential("person", from: context.clientAddress)]
            if let wait = failures.wait(keys) {
                var response = PasskeyRoutes.error("Too many attempts from your network. Wait \(wait) seconds and try again.", status: .tooManyRequests)
                response.headers[.retryAfter] = String(wait)
                return response
            }
            let body = try await PasskeyRoutes.body(request, limit: bodyLimit)
            do {
                let open = try await personServer(named: Self.userHandle(body))
                _ = try await open.server.passkeys.signIn(body, signedChallenges: challenges)
                failures.succeed([keys[1]])
                var response = JSONResponse.make(.object([("next", .string(LoginRoutes.safeNext(body.string("next"))))]))
                let person = open.server.person
                response.setCookie(person.cookie.cookie(value: try await person.sessions.start(), maxAge: person.sessions.lifetimeSeconds))
                return response
            } catch let failure as PasskeyCeremonies.Failure {
                failures.fail(keys)
                return PasskeyRoutes.error(failure)
            }
        }
        router.post("/login/recovery") { request, context -> Response in
            let form = try await FormFields.read(request, limit: bodyLimit)
            let keys = [ThrottleKey.address(context.clientAddress), .credential("person", from: context.clientAddress)]
            var response: Response
            if let wait = failures.wait(keys) {
                response = page(next: form["next"], error: "Too many attempts from your network. Wait \(wait) seconds and try again.", status: .tooManyRequests)
                response.headers[.retryAfter] = String(wait)
            } else if let open = try? await personServer(named: (form["person"] ?? "").trimmingCharacters(in: .whitespaces)),
                try await open.server.passkeys.useRecoveryCode(form["code"] ?? "")
            {
                failures.succeed([keys[1]])
                response = PageRenderer.redirect("/passkeys?recovered=1")
                let person = open.server.person
                response.setCookie(person.cookie.cookie(value: try await person.sessions.start(), maxAge: person.sessions.lifetimeSeconds))
            } else {
                // An unknown id and a wrong code read the same: the form does not tell who is here.
                failures.fail(keys)
                response = page(next: form["next"], error: "That id and recovery code do not match, or the code was already used.", status: .unauthorized)
            }
            PageHeaders.add(to: &response)
            return response
        }
    }

    /// A proxy's switch: from their own session (kept aside in the home cookie) to a session in
    /// the store of the person they act for, which that store's arrangement must allow; and back.
    /// Each goes on to the form's `next` (a path of this server), or home.
    func registerSwitch(on router: Router<HealthRequestContext>, cookie: SessionCookie) {
        router.post("/act-for") { request, _ -> Response in
            let form = try await FormFields.read(request, limit: bodyLimit)
            guard let own = request.cookies[cookie.name]?.value, let (home, session) = await Self.session(own, people), session.proxy == nil else {
                return PageRenderer.redirect("/login")
            }
            try PersonPages.checkForm(token: form["csrf"], session)
            let target = form["person"] ?? ""
            guard PersonEntry.isValidID(target), let homeID = PersonPrefix.person(of: own),
                let mine = try await home.server.store.householdMembers().first(where: { $0.id == target && $0.role == .represented }),
                let open = try? await people.server(target),
                let grant = try await open.server.store.householdMembers().first(where: { $0.id == homeID && $0.role == .proxy })
            else {
                return renderer.page(
                    MessagePage(title: "Not allowed", message: "That person has not made you their proxy, or no longer does."), session: session,
                    status: .forbidden)
            }
            let proxySession = try await open.server.person.sessions.start(proxy: ProxyActor(id: homeID, name: grant.name, actingFor: mine.name))
            // Back where the switch was asked from (the shared base's consent page), or home.
            var response = PageRenderer.redirect(LoginRoutes.safeNext(form["next"]))
            let lifetime = open.server.person.sessions.lifetimeSeconds
            response.setCookie(cookie.cookie(value: proxySession, maxAge: lifetime))
            response.setCookie(cookie.home(value: own, maxAge: lifetime))
            return response
        }
        router.post("/act-for/stop") { request, _ -> Response in
            let form = try await FormFields.read(request, limit: bodyLimit)
            var response = PageRenderer.redirect(LoginRoutes.safeNext(form["next"]))
            if let acting = request.cookies[cookie.name]?.value, let (open, session) = await Self.session(acting, people), session.proxy != nil {
                try PersonPages.checkForm(token: form["csrf"], session)
                try await open.server.person.sessions.end(cookie: acting)
            }
            if let home = request.cookies[cookie.homeName]?.value, let (open, session) = await Self.session(home, people), session.proxy == nil {
                response.setCookie(cookie.cookie(value: home, maxAge: open.server.person.sessions.lifetimeSeconds))
            } else {
                response = PageRenderer.redirect("/login")
                response.setCookie(cookie.cookie(value: "", maxAge: 0))
            }
            response.setCookie(cookie.home(value: "", maxAge: 0))
            return response
        }
    }

    /// The live session a cookie value names, and its person's server.
    static func session(_ cookie: String, _ people: PersonServers) async -> (PersonServers.Open, PersonSession)? {
        guard let id = PersonPrefix.person(of: cookie), let open = try? await people.server(id), let session = await open.server.person.sessions.session(cookie: cookie) else {
            return nil
        }
        return (open, session)
    }

    private var relyingPartyID: String? { URL(string: address.baseURL).flatMap { RelyingParty(publicURL: $0) }?.id }

    /// The open server of the person an id names; an id that names nobody is an unknown passkey.
    private func personServer(named id: String) async throws -> PersonServers.Open {
        guard PersonEntry.isValidID(id) else { throw PasskeyCeremonies.Failure.unknownPasskey }
        do { return try await people.server(id) } catch PeopleServerError.unknownPerson { throw PasskeyCeremonies.Failure.unknownPasskey }
    }

    /// The person a passkey answer names: its user handle, which is their id.
    static func userHandle(_ body: JSONObject) -> String {
        guard let text = body["credential"]?.objectValue?["response"]?.objectValue?.string("userHandle"), let bytes = try? Base64URL.decode(text),
            bytes.count <= 64
        else { return "" }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func page(next: String?, error: String?, status: HTTPResponse.Status = .ok) -> Response {
        var response = renderer.page(LoginPage(next: LoginRoutes.safeNext(next), error: error, many: true), session: nil, status: status)
        response.headers[.contentSecurityPolicy] = PageHeaders.passkeyScript
        return response
    }
}
