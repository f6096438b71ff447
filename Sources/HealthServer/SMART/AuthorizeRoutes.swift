import ClinicalRecords
import Foundation
import HealthStoreCore
import Hummingbird
import SMARTAuthorization

/// SMART App Launch's authorization endpoint (`/authorize`, GET and POST) and the consent page
/// it leads to.
///
/// A request is checked first (``AuthorizationParameters``): an unknown client or a redirect
/// URI that is not registered exactly is told to the person and never redirected; every other
/// fault goes back to the app as `error=…&state=…`. A signed-out person signs in first and comes
/// back to the same request. The requested scopes become one switch per consent category
/// (wildcards expanded; only categories the app is registered for), with the new-data choice.
/// The app gets a code whatever the person chose — categories turned off look like no data —
/// which it exchanges at `/token` within a minute.
struct AuthorizeRoutes {
    /// Apps, the pending requests and codes kept as credentials, and the people the person
    /// acts for (the shared base's choice of whose records).
    let store: any ConsentStorage & CredentialStorage & HouseholdStorage
    let clock: HealthClock
    let consent: ConsentManager
    let person: PersonAccess
    let pages: PersonPages
    let address: ServerAddress
    /// The root's SMART base in a server for many people (``SharedSMARTBase``); `nil` otherwise.
    var shared: SMARTEndpoints? = nil
    /// What begins every code (``PersonPrefix``).
    var codePrefix = ""

    /// How long the consent page waits for the person.
    static let pendingLifetime: TimeInterval = 15 * 60
    /// How long a code may wait for its exchange.
    static let codeLifetime: TimeInterval = 60

    func register(on router: Router<HealthRequestContext>, signedIn: RouterGroup<HealthRequestContext>) {
        router.get("/authorize") { request, context -> Response in
            var response = try await authorize(FormFields.parse(request.uri.query ?? ""), request: request, context: context)
            PageHeaders.add(to: &response)
            return response
        }
        router.post("/authorize") { request, context -> Response in
            let form = try await FormFields.read(request, limit: pages.formLimit)
            var response = try await authorize(form, request: request, context: context)
            PageHeaders.add(to: &response)
            return response
        }
        pages.post(signedIn, "/authorize/consent/{id}") { form, context -> Response in
            return try await decide(id: context.parameters.get("id") ?? "", form: form, context: context)
        }
    }

    private func authorize(_ fields: FormFields, request: Request, context: HealthRequestContext) async throws -> Response {
        let endpoints = SMARTEndpoints(base: address.baseURL)
        var app: StoredApp?
        if let id = fields["client_id"], fields.all("client_id").count == 1 { app = try? await store.app(id: id) }
        let parameters: AuthorizationParameters
        let scopes: ScopeRequest
        do throws(AuthorizationParameters.Failure) {
            parameters = try AuthorizationParameters.check(fields, app: app?.registration, endpoints: endpoints, shared: shared)
            do { scopes = try ScopeRequest(parsing: parameters.scope) } catch {
                throw AuthorizationParameters.Failure.redirect(error: "invalid_scope", description: error.description, state: parameters.state)
            }
        } catch .unsafe(let why) {
            return pages.renderer.page(MessagePage(title: "This app's request cannot be used", message: "Nothing was shared: \(why)."), session: nil, status: .badRequest)
        } catch .redirect(let error, let description, let appState) {
            // Only reached once the redirect URI matched a registered one exactly.
            return PageRenderer.redirect(
                AuthorizationParameters.redirect(fields["redirect_uri"] ?? "", [("error", error), ("error_description", description), ("state", appState)]))
        }
        guard let app = app?.registration else { return PageRenderer.redirect("/login") }
        // The person signs in first, then comes back to this very request.
        let again = Self.path(fields)
        guard let session = await person.session(request) else { return Self.signInFirst(fields) }
        if let proxy = session.proxy {
            // This route is outside the signed-in group (a signed-out browser is sent to sign in
            // and back), so what the group's middleware records for a proxy is recorded here:
            // the consent page shows the person's records.
            try await store.recordProxyAction(
                ProxyAction(actorID: proxy.id, actorName: proxy.name, action: request.method.rawValue + " " + request.uri.path, date: clock.now))
        }
        let id = SecretToken.make()
        _ = try await store.insertCredential(
            StoredCredential(
                kind: .pendingAuthorization, digest: SecretToken.digest(id), appID: app.id, family: SecretToken.digest(id),
                expires: clock.now.addingTimeInterval(Self.pendingLifetime), details: parameters.json))
        let whose = parameters.atSharedBase ? try await whoseRecords(session, next: again) : nil
        return try await consentPage(id: id, app: app, categories: Self.categories(scopes, app), session: session, whose: whose)
    }

    /// The request again, as a path: where the browser comes back to.
    static func path(_ fields: FormFields) -> String {
        "/authorize?" + fields.pairs.map { FormFields.encode($0.0) + "=" + FormFields.encode($0.1) }.joined(separator: "&")
    }

    /// Sends the browser to sign in, and back to the same request afterwards.
    static func signInFirst(_ fields: FormFields) -> Response { PageRenderer.redirect("/login?next=" + FormFields.encode(path(fields))) }

    /// At the shared base: the person's own records, or — for a proxy — the person they act
    /// for, with the others they may choose instead (each choice goes through the front's
    /// switch, `/act-for`, and comes back to the same request).
    private func whoseRecords(_ session: PersonSession, next: String) async throws -> ConsentPage.WhoseRecords {
        if let proxy = session.proxy {
            return ConsentPage.WhoseRecords(own: false, whoseName: proxy.actingFor.isEmpty ? "someone" : proxy.actingFor, others: [], next: next)
        }
        let represented = try await store.householdMembers().filter { $0.role == .represented }
        return ConsentPage.WhoseRecords(own: true, whoseName: "", others: represented.map { .init(id: $0.id, name: $0.name) }, next: next)
    }

    /// The categories the consent page offers: those the scopes reach that the app is registered for.
    static func categories(_ scopes: ScopeRequest, _ app: AppRegistration) -> [HealthDataType] {
        scopes.granted.consentCategories.map(HealthDataType.init).filter { app.requestedTypes.contains($0) }.sorted()
    }

    private func consentPage(
        id: String, app: AppRegistration, categories: [HealthDataType], session: PersonSession, whose: ConsentPage.WhoseRecords?
    ) async throws -> Response {
        let grants = Dictionary(try await consent.grants(appID: app.id).map { ($0.type, $0) }, uniquingKeysWith: { a, _ in a })
        let share = categories.contains { grants[$0]?.newData == .share }
        let shown = HistoryChoice.shown(grants, types: categories)
        return pages.renderer.page(
            ConsentPage(
                title: "\(app.name) would like to access \(ConsentPage.possessive(session)) health records", id: "", action: "/authorize/consent/\(id)", app: app.name,
                purpose: app.purpose, privacy: app.privacyPolicyURL.absoluteString,
                types: categories.map { ConsentPage.TypeChoice($0, required: false, on: grants[$0]?.decision == .allowed, window: shown.own[$0]) },
                hasRequired: false, share: share, history: shown.sheet,
                medications: try await MedicationPick(consent: consent).shown(appID: app.id, types: categories), whose: whose,
                possessive: ConsentPage.possessive(session)),
            session: session)
    }

    private func decide(id: String, form: FormFields, context: HealthRequestContext) async throws -> Response {
        guard case .used(let pending) = try await store.useCredential(.pendingAuthorization, digest: SecretToken.digest(id)),
            pending.expires > clock.now, let parameters = AuthorizationParameters(json: pending.details),
            let app = try await store.app(id: parameters.clientID)?.registration, let scopes = try? ScopeRequest(parsing: parameters.scope)
        else { return pages.notFound(context) }
        let offered = Self.categories(scopes, app)
        let picked = form["action"] == "deny" ? [] : Set(form.all("allow"))
        let allow = Set(offered.filter { picked.contains($0.name) })
        let deny = Set(offered).subtracting(allow)
        let newData: NewDataPolicy = form["newData"] == "share" ? .share : .ask
        // A window the sheet did not offer decides nothing: the app is told access was denied.
        guard let history = HistoryChoice(form, types: offered) else {
            return PageRenderer.redirect(
                AuthorizationParameters.redirect(parameters.redirectURI, [("error", "access_denied"), ("state", parameters.state)]))
        }
        if !offered.isEmpty {
            try await MedicationPick(consent: consent).answer(form, appID: app.id, allowed: allow)
            _ = try? await consent.decide(
                appID: app.id, AuthorizationDecision(allow: allow, deny: deny, newData: newData, history: history.history, historyByType: history.byType))
        }
        let code = codePrefix + SecretToken.make()
        let digest = SecretToken.digest(code)
        _ = try await store.insertCredential(
            StoredCredential(
                kind: .authorizationCode, digest: digest, appID: app.id, family: digest, expires: clock.now.addingTimeInterval(Self.codeLifetime),
                details: parameters.json))
        return PageRenderer.redirect(AuthorizationParameters.redirect(parameters.redirectURI, [("code", code), ("state", parameters.state)]))
    }
}
