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
