import ByteEncodings
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary
import Hummingbird

/// Passkeys (docs/passkeys.md): signing in with one or with a recovery code (`/login/…`), and
/// the person's passkey page (`/passkeys`): enrol, rename, remove, new recovery codes.
///
/// The ceremonies' JSON endpoints take the same throttle as the token sign-in, by address and
/// by the person: while an address waits, nothing it sends is checked. The enrolment endpoints
/// need the session and its anti-forgery token (in the JSON body). The sign-in and passkey
/// pages are the only person's pages that run a script: the server's own file, under a policy
/// that allows no other.
struct PasskeyRoutes {
    let ceremonies: PasskeyCeremonies
    let person: PersonAccess
    let failures: FailureThrottle
    let pages: PersonPages
    let bodyLimit: Int
    /// The person's id in a server for many people: shown with the recovery codes, since the
    /// front's recovery form asks for it.
    var personID: String? = nil

    func register(on router: Router<HealthRequestContext>, signedIn: RouterGroup<HealthRequestContext>) {
        let script = pages.renderer.passkeyScript
        router.get("/static/passkeys.js") { _, _ -> Response in
            var response = Response(
                status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "max-age=3600"], body: ResponseBody(byteBuffer: script))
            response.headers[HeaderName.contentTypeOptions] = "nosniff"
            return response
        }
        router.post("/login/passkey/options") { _, _ -> Response in
            do { return JSONResponse.make(try await ceremonies.signInOptions()) } catch let f as PasskeyCeremonies.Failure { return Self.error(f) }
        }
        router.post("/login/passkey") { request, context -> Response in
            let keys = [ThrottleKey.address(context.clientAddress), .credential("person", from: context.clientAddress)]
            if let wait = failures.wait(keys) {
                var response = Self.error("Too many attempts from your network. Wait \(wait) seconds and try again.", status: .tooManyRequests)
                response.headers[.retryAfter] = String(wait)
                return response
            }
            let body = try await Self.body(request, limit: bodyLimit)
            do {
                _ = try await ceremonies.signIn(body)
            } catch let f as PasskeyCeremonies.Failure {
                failures.fail(keys)
                return Self.error(f)
            }
            failures.succeed([keys[1]])
            var response = JSONResponse.make(.object([("next", .string(LoginRoutes.safeNext(body.string("next"))))]))
            response.setCookie(person.cookie.cookie(value: try await person.sessions.start(), maxAge: person.sessions.lifetimeSeconds))
            return response
        }
        // An operator's enrolment link (`healthrecords people invite`): once, before it expires.
        router.get("/enrol") { request, context -> Response in
            let keys = [ThrottleKey.address(context.clientAddress), .credential("person", from: context.clientAddress)]
            var response: Response
            if let wait = failures.wait(keys) {
                response = LoginRoutes.page(pages.renderer, next: nil, error: "Too many attempts from your network. Wait \(wait) seconds and try again.", status: .tooManyRequests)
                response.headers[.retryAfter] = String(wait)
            } else if try await ceremonies.takeInvite(FormFields.parse(request.uri.query ?? "")["token"] ?? "") {
                failures.succeed([keys[1]])
                response = PageRenderer.redirect("/passkeys")
                response.setCookie(person.cookie.cookie(value: try await person.sessions.start(), maxAge: person.sessions.lifetimeSeconds))
            } else {
                failures.fail(keys)
                response = LoginRoutes.page(pages.renderer, next: nil, error: "This enrolment link expired or was already used. Ask for a new one.", status: .unauthorized)
            }
            PageHeaders.add(to: &response)
            return response
        }
        router.post("/login/recovery") { request, context -> Response in
            let form = try await FormFields.read(request, limit: bodyLimit)
            let keys = [ThrottleKey.address(context.clientAddress), .credential("person", from: context.clientAddress)]
            var response: Response
            if let wait = failures.wait(keys) {
                response = LoginRoutes.page(pages.renderer, next: form["next"], error: "Too many attempts from your network. Wait \(wait) seconds and try again.", status: .tooManyRequests)
                response.headers[.retryAfter] = String(wait)
            } else if try await ceremonies.useRecoveryCode(form["code"] ?? "") {
                failures.succeed([keys[1]])
                // A used code is gone: the passkey page says how many are left.
                response = PageRenderer.redirect("/passkeys?recovered=1")
                response.setCookie(person.cookie.cookie(value: try await person.sessions.start(), maxAge: person.sessions.lifetimeSeconds))
            } else {
                failures.fail(keys)
                response = LoginRoutes.page(pages.renderer, next: form["next"], error: "That recovery code is not valid, or was already used.", status: .unauthorized)
            }
            PageHeaders.add(to: &response)
            return response
        }

        signedIn.get("/passkeys") { request, context -> Response in
            let recovered = FormFields.parse(request.uri.query ?? "")["recovered"] == "1"
            let page = PasskeysPage(
                passkeys: try await ceremonies.store.passkeys(), codesLeft: try await ceremonies.store.recoveryCodesLeft(), recovered: recovered,
                available: ceremonies.relyingParty != nil, personID: personID)
            var response = pages.page(context, page)
            response.headers[.contentSecurityPolicy] = PageHeaders.passkeyScript
            return response
        }
        signedIn.post("/passkeys/options") { request, context -> Response in
            let body = try await Self.body(request, limit: bodyLimit)
            try PersonPages.checkForm(token: body.string("csrf"), context.session)
            do { return JSONResponse.make(try await ceremonies.registrationOptions()) } catch let f as PasskeyCeremonies.Failure { return Self.error(f) }
        }
        signedIn.post("/passkeys") { request, context -> Response in
            let body = try await Self.body(request, limit: bodyLimit)
            try PersonPages.checkForm(token: body.string("csrf"), context.session)
            do {
                let (passkey, codes) = try await ceremonies.register(body)
                return JSONResponse.make(.object([("name", .string(passkey.name)), ("recoveryCodes", .array(codes.map { .string($0) }))]))
            } catch let f as PasskeyCeremonies.Failure {
                return Self.error(f)
            }
        }
        pages.post(signedIn, "/passkeys/{id}/rename") { form, context -> Response in
            guard let id = Self.id(context), try await ceremonies.store.renamePasskey(credentialID: id, to: form["name"] ?? "") else {
                return pages.notFound(context)
            }
            return PageRenderer.redirect("/passkeys")
        }
        pages.post(signedIn, "/passkeys/{id}/remove") { _, context -> Response in
            guard let id = Self.id(context), try await ceremonies.store.deletePasskey(credentialID: id) else { return pages.notFound(context) }
            return PageRenderer.redirect("/passkeys")
        }
        pages.post(signedIn, "/passkeys/recovery-codes") { _, context -> Response in
            pages.page(context, RecoveryCodesPage(codes: try await ceremonies.newRecoveryCodes(), personID: personID))
        }
    }

    private static func id(_ context: HealthRequestContext) -> Data? {
        context.parameters.get("id").flatMap { try? Base64URL.decode($0) }.map { Data($0) }
    }

    static func body(_ request: Request, limit: Int) async throws -> JSONObject {
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: limit) } catch { throw APIError.bodyTooLarge(limit: limit) }
        guard let object = (try? JSONReader().read(Data(buffer.readableBytesView)))?.objectValue else {
            throw APIError.invalidRequest("the body is not a JSON object")
        }
        return object
    }

    static func error(_ failure: PasskeyCeremonies.Failure) -> Response {
        switch failure {
        case .noRelyingParty: error(failure.message, status: .conflict)
        case .malformed: error(failure.message, status: .badRequest)
        default: error(failure.message, status: .unauthorized)
        }
    }

    static func error(_ message: String, status: HTTPResponse.Status) -> Response {
        JSONResponse.make(.object([("error", .string(message))]), status: status)
    }
}

/// The person's passkeys.
struct PasskeysPage: PageContent {
    static let template = "passkeys"
    let title = "Passkeys"
    let passkeys: [Row]
    let codesLeft: Int
    let recovered: Bool
    /// Whether this server's address can hold passkeys (a host name, not an IP address).
    let available: Bool
    /// In a server for many people, the id to give with a recovery code.
    let personID: String?

    struct Row: Sendable {
        let id: String
        let name: String
        let created: String
        let lastUsed: String?
        let synced: Bool
    }

    init(passkeys: [StoredPasskey], codesLeft: Int, recovered: Bool, available: Bool, personID: String? = nil) {
        self.personID = personID
        self.passkeys = passkeys.map {
            Row(
                id: Base64URL.encode($0.credentialID), name: $0.name, created: PageDates.short($0.created), lastUsed: $0.lastUsed.map(PageDates.dateTime),
                synced: $0.backupEligible)
        }
        (self.codesLeft, self.recovered, self.available) = (codesLeft, recovered, available)
    }
}

/// New recovery codes, shown once.
struct RecoveryCodesPage: PageContent {
    static let template = "recovery-codes"
    let title = "Recovery codes"
    let codes: [String]
    /// In a server for many people, the id to give with a code.
    let personID: String?
}
