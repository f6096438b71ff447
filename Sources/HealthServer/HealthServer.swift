import ClinicalRecords
import Foundation
import HealthStoreCore
import Hummingbird
import Logging
import OutboundHTTP

/// The HTTP server: the SMART on FHIR API (`/authorize`, `/token`, `/fhir`), the app API
/// (OAuth2 client credentials, authorization requests, record
/// queries, anchored changes, event streams, webhooks, one-time verifiable records) and the
/// person's pages (sign-in, timeline, cards, immunizations, apps, consent and sharing), over
/// one ``HealthStore``.
///
/// Handlers are thin: they parse, call ``ConsentManager`` / ``AppView`` / the store, and
/// present. Tokens and sessions are kept in the store as digests; the app API's pending
/// requests and webhooks live in memory.
public struct HealthServer: Sendable {
    /// The store every request reads and writes, tokens and sessions included.
    public let store: any HealthStore
    /// The settings given at init; the server keeps them for its lifetime.
    public let configuration: ServerConfiguration
    let state: ServerState
    let logger: Logger

    /// Makes a server over a store, loading the bundled templates.
    ///
    /// - Parameters:
    ///   - webhookSender: what delivers webhooks (a ``PinnedWebhookSender`` over `resolver`
    ///     unless given; tests pass their own).
    ///   - resolver: where webhook hosts are resolved, at registration and by the default
    ///     sender (the system's unless a test answers instead).
    /// - Throws: ``ServerSetupError`` when the bundled resources are missing or broken.
    public init(
        store: any HealthStore, configuration: ServerConfiguration, logger: Logger, webhookSender: (any WebhookSender)? = nil,
        resolver: any HostResolver = SystemResolver()
    ) async throws {
        self.store = store
        self.configuration = configuration
        self.logger = logger
        let pages = try await PageRenderer.load()
        state = ServerState(
            store: store, configuration: configuration, pages: pages, sender: webhookSender ?? PinnedWebhookSender(resolver: resolver), resolver: resolver,
            logger: logger)
    }

    /// The person's sign-in link (`…/login?token=…`).
    public var signInURL: String { state.baseURL + "/login?token=" + configuration.personToken }

    /// The base URL of the links the server hands out.
    public var baseURL: String { state.baseURL }

    /// How many keys the sign-in and token throttle holds (bounded; for the soak check and tests).
    package var throttledKeyCount: Int { state.authFailures.count }

    /// A bearer token for an app carrying a granted SMART scope string, as a SMART token grant
    /// issues it but without the browser flow (tests of scope enforcement use it); `nil` when
    /// the app is unknown.
    package func issueAccessToken(appID: String, scope: String) async throws -> String? {
        guard let app = try await store.app(id: appID) else { return nil }
        return try await state.tokens.issue(appID: appID, revision: app.accessRevision, scope: scope).token
    }

    /// The router with every route and middleware.
    public func router() -> Router<HealthRequestContext> {
        let router = Router(context: HealthRequestContext.self)
        router.add(middleware: SMARTCORSMiddleware())
        router.add(middleware: RequestLogMiddleware(logger: logger))
        router.add(middleware: TimeoutMiddleware(timeout: configuration.limits.requestTimeout))
        PublicRoutes(state: state).register(on: router)
        TokenRoutes(state: state).register(on: router)
        LoginRoutes(state: state).register(on: router)

        let api = router.group().add(middleware: AppAuthMiddleware(state: state))
        AuthorizationRoutes(state: state).register(on: api)
        RecordRoutes(state: state).register(on: api)
        ObserveRoutes(state: state).register(on: api)
        VerifiableRecordRoutes(state: state).register(on: api)
        WebhookRoutes(state: state).register(on: api)

        TokenRevocationRoutes(state: state).register(on: router)
        let fhir = FHIRRoutes(state: state)
        fhir.registerPublic(on: router)
        fhir.registerProtected(on: router.group().add(middleware: FHIRAccessMiddleware(state: state)))

        let pages = router.group().add(middleware: PersonAuthMiddleware(state: state))
        let person = PersonRoutes(state: state)
        person.register(on: pages)
        RecordPageRoutes(state: state, person: person).register(on: pages)
        UploadRoutes(state: state, person: person).register(on: pages)
        ConsentRoutes(state: state, person: person).register(on: pages)
        AuthorizeRoutes(state: state, person: person).register(on: router, pages: pages)
        RegistrationRoutes(state: state, person: person).register(on: pages)
        ProviderRoutes(state: state, person: person).register(on: pages)
        ExportRoutes(state: state).register(on: pages)
        return router
    }

    /// The Hummingbird application; `onListening` hears the bound host and port (useful with
    /// port 0), after which the links the server hands out use them unless
    /// ``ServerConfiguration/publicBaseURL`` is set.
    public func application(onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in }) -> some ApplicationProtocol {
        let state = self.state
        let configured = configuration.publicBaseURL
        let host = configuration.host
        let idle = configuration.limits.idleTimeout
        return Application(
            router: router(),
            server: .http1(configuration: .init(idleTimeout: .nanoseconds(Int64(idle.components.seconds) * 1_000_000_000))),
            configuration: ApplicationConfiguration(address: .hostname(host, port: configuration.port), serverName: "healthrecords"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                if configured == nil { state.baseURL = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
                await onListening(host, port)
            },
            logger: logger)
    }

    /// Runs until SIGINT or SIGTERM.
    public func run(onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in }) async throws {
        let scheduler = configuration.providerSyncInterval.map { interval in Task { await state.providerSync.runEvery(interval) } }
        defer { scheduler?.cancel() }
        try await application(onListening: onListening).runService()
    }
}
