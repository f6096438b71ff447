import ClinicalRecords
import Foundation
import HealthImport
import HealthSharing
import HealthStoreCore
import Hummingbird
import Logging
import NetworkAddresses
import OutboundHTTP
import ProviderSync
import SMARTAuthorization
import ServiceLifecycle
import SmartHealthCards
import VerifiableRecords

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
    let logger: Logger
    // The services the routes share, each given only to the routes that use it; assembled here
    // and nowhere else.
    let address: ServerAddress
    let renderer: PageRenderer
    let consent: ConsentManager
    let appAccess: AppAccess
    let authorization: AuthorizationServer
    let person: PersonAccess
    let providerSync: SyncScheduler
    let fhir: FHIRService
    let sharedLinks: SharedLinkFetcher
    let hostedLinks: HostedLinkService
    let passkeys: PasskeyCeremonies
    /// In a server for many people, how this person's pages reach the others' (proxies).
    let household: Household?
    /// Where this person's background jobs take turns among many people's (``FairTurns``).
    let turns: BackgroundLanes?
    /// The clock every request's deadline waits on (one for all people of a server).
    let deadlines: RequestDeadlines

    /// Whether an app has a webhook here (they live in this process's memory).
    var holdsWebhooks: Bool { !appAccess.webhooks.isEmpty }

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
        try await self.init(
            store: store, configuration: configuration, logger: logger, webhookSender: webhookSender, resolver: resolver, renderer: PageRenderer.load(),
            failures: nil)
    }

    /// A server over one store with parts shared with others (a ``PeopleServer`` makes one per
    /// person): the loaded templates, and the throttle of failed sign-ins, so guesses spread over
    /// people are counted together.
    init(
        store: any HealthStore, configuration: ServerConfiguration, logger: Logger, webhookSender: (any WebhookSender)?, resolver: any HostResolver,
        renderer: PageRenderer, failures: FailureThrottle?, household: Household? = nil, turns: BackgroundLanes? = nil, shared: SharedSMARTBase? = nil,
        deadlines: RequestDeadlines? = nil
    ) async throws {
        self.store = store
        self.deadlines = deadlines ?? RequestDeadlines(timeout: configuration.limits.requestTimeout)
        self.household = household
        self.turns = turns
        self.configuration = configuration
        self.logger = logger
        let limits = configuration.limits
        self.renderer = renderer
        address = ServerAddress(configuration: configuration)
        consent = ConsentManager(store: store)
        let tokens = AccessTokens(
            credentials: store, clock: store.clock, lifetime: configuration.accessTokenLifetime, prefix: PersonPrefix.make(configuration.servedPerson))
        let webhooks = Webhooks(
            sender: webhookSender ?? PinnedWebhookSender(resolver: resolver), resolver: resolver, policy: configuration.webhooks, store: store,
            pollInterval: configuration.observePollInterval, logger: logger, turns: turns?.sharing, person: configuration.servedPerson ?? "")
        appAccess = AppAccess(
            tokens: tokens, limiter: RateLimiter(rate: limits.appRequestsPerSecond, burst: limits.appBurst), consent: consent,
            pending: PendingRequests(store: store, lifetime: configuration.pendingRequestLifetime, clock: store.clock, maxPerApp: limits.maxPendingRequestsPerApp),
            webhooks: webhooks, maxStreamsPerApp: limits.maxStreamsPerApp)
        let keyFetcher = PinnedHTTPFetcher(
            policy: FetchPolicy(allowLoopback: configuration.webhooks.allowLoopback, allowPrivateAddresses: configuration.webhooks.allowPrivateAddresses),
            resolver: resolver)
        authorization = AuthorizationServer(
            store: store, clock: store.clock, tokens: tokens,
            failures: failures ?? FailureThrottle(freeFailures: Int(limits.authFailureBurst.rounded(.down)), baseBackoff: limits.authFailureBackoff),
            keySets: ClientKeySets { url throws(FetchError) in try await keyFetcher.getCacheable(url) }, address: address, logger: logger,
            maxBodyBytes: limits.maxBodyBytes, shared: shared)
        person = PersonAccess(
            sessions: PersonSessions(
                credentials: store, clock: store.clock, lifetime: configuration.personSessionLifetime,
                cookiePrefix: PersonPrefix.make(configuration.servedPerson)),
            cookie: SessionCookie(publicBaseURL: configuration.publicBaseURL))
        providerSync = SyncScheduler(syncer: ProviderSyncer(store: store), turns: turns?.syncs, person: configuration.servedPerson ?? "")
        fhir = FHIRService(store: store, address: address, sharedBase: shared)
        let clock = store.clock
        hostedLinks = HostedLinkService(
            store: store, address: address, pollInterval: limits.linkPollInterval, pollBurst: limits.linkPollBurst,
            maxConcurrentChecks: limits.maxConcurrentPasscodeChecks, locationLifetime: limits.linkLocationLifetime)
        var passkeys = PasskeyCeremonies(store: store, clock: store.clock, address: address)
        if let id = configuration.servedPerson { passkeys.userHandle = Array(id.utf8) }
        self.passkeys = passkeys
        sharedLinks = SharedLinkFetcher(addresses: AddressPolicy(allowLoopback: configuration.allowLoopbackProviders), resolver: resolver, now: { clock.now })
    }

    /// The person's sign-in link (`…/login?token=…`).
    public var signInURL: String { address.baseURL + "/login?token=" + configuration.personToken }

    /// The base URL of the links the server hands out.
    public var baseURL: String { address.baseURL }

    /// How many link passcodes were hashed (tests hold the lifetime limit with it).
    package var passcodeChecks: Int { hostedLinks.passcodeChecks.load(ordering: .relaxed) }

    /// How many keys the sign-in and token throttle holds (bounded; for the soak check and tests).
    package var throttledKeyCount: Int { authorization.failures.count }

    /// A bearer token for an app carrying a granted SMART scope string, as a SMART token grant
    /// issues it but without the browser flow (tests of scope enforcement use it); `nil` when
    /// the app is unknown.
    package func issueAccessToken(appID: String, scope: String) async throws -> String? {
        guard let app = try await store.app(id: appID) else { return nil }
        return try await appAccess.tokens.issue(appID: appID, revision: app.accessRevision, scope: scope).token
    }

    /// The router with every route and middleware.
    public func router() -> Router<HealthRequestContext> {
        let router = Router(context: HealthRequestContext.self)
        router.add(middleware: SMARTCORSMiddleware())
        router.add(middleware: RequestLogMiddleware(logger: logger))
        router.add(middleware: ErrorMappingMiddleware(logger: logger))
        router.add(middleware: TimeoutMiddleware(deadlines: deadlines))
        let limits = configuration.limits
        let pages = PersonPages(renderer: renderer, formLimit: limits.maxBodyBytes, uploadLimit: limits.maxUploadBytes)
        PublicRoutes(renderer: renderer).register(on: router)
        HostedLinkRoutes(service: hostedLinks, bodyLimit: 4096).register(on: router)
        ViewerRoutes(page: renderer.viewerPage, script: renderer.viewerScript).register(on: router)
        TokenRoutes(server: authorization).register(on: router)
        LoginRoutes(person: person, failures: authorization.failures, renderer: renderer, personToken: configuration.personToken, formLimit: limits.maxBodyBytes)
            .register(on: router)

        let api = router.group().add(middleware: BearerAuthMiddleware(access: appAccess, audience: .appAPI))
        AuthorizationRoutes(pending: appAccess.pending, address: address, bodyLimit: limits.maxBodyBytes).register(on: api)
        RecordRoutes(limitCap: limits.maxRecordsPerQuery).register(on: api)
        ObserveRoutes(access: appAccess, pollInterval: configuration.observePollInterval, heartbeatInterval: configuration.heartbeatInterval).register(on: api)
        VerifiableRecordRoutes(pending: appAccess.pending, address: address, bodyLimit: limits.maxBodyBytes).register(on: api)
        WebhookRoutes(webhooks: appAccess.webhooks, bodyLimit: limits.maxBodyBytes, maxPerApp: limits.maxWebhooksPerApp).register(on: api)

        TokenRevocationRoutes(server: authorization).register(on: router)
        let fhirRoutes = FHIRRoutes(service: fhir, address: address, countCap: limits.maxRecordsPerQuery, bodyLimit: limits.maxBodyBytes)
        fhirRoutes.registerPublic(on: router)
        fhirRoutes.registerProtected(on: router.group().add(middleware: BearerAuthMiddleware(access: appAccess, audience: .fhir)))

        let signedIn = router.group().add(middleware: PersonAuthMiddleware(person: person, renderer: renderer, proxyLog: store, clock: store.clock))
        let personOnly = signedIn.group().add(middleware: PersonOnlyMiddleware(renderer: renderer))
        PersonRoutes(records: store, consent: consent, access: appAccess, pages: pages).register(on: signedIn)
        ReviewRoutes(consent: consent, access: appAccess, pages: pages).register(on: signedIn)
        RecordPageRoutes(records: store, pages: pages).register(on: signedIn)
        var importOptions = RecordImporter.Options()
        importOptions.cardVerifier = configuration.cardVerifier
        importOptions.dccVerifier = configuration.dccVerifier
        UploadRoutes(
            importer: RecordImporter(store: store, options: importOptions), links: sharedLinks, pages: pages, allowLoopback: configuration.allowLoopbackProviders
        ).register(on: signedIn)
        ConsentRoutes(pending: appAccess.pending, consent: consent, pages: pages).register(on: signedIn)
        AuthorizeRoutes(
            store: store, clock: store.clock, consent: consent, person: person, pages: pages, address: address, shared: authorization.shared?.endpoints,
            codePrefix: authorization.tokens.prefix
        ).register(on: router, signedIn: signedIn)
        // Registering an app is the person's: a proxy's app (its redirect URIs, its secret) would
        // keep reading after their role ended.
        RegistrationRoutes(consent: consent, address: address, pages: pages).register(on: personOnly)
        ProviderRoutes(store: store, sync: providerSync, address: address, pages: pages, allowLoopback: configuration.allowLoopbackProviders)
            .register(on: signedIn)
        ExportRoutes(store: store).register(on: signedIn)
        LinkPageRoutes(store: store, address: address, pages: pages, passcodeCost: configuration.linkPasscodeCost).register(on: signedIn)
        PasskeyRoutes(
            ceremonies: passkeys, person: person, failures: authorization.failures, pages: pages,
            bodyLimit: limits.maxBodyBytes, personID: configuration.servedPerson
        ).register(on: router, signedIn: personOnly)
        HouseholdRoutes(store: store, person: person, household: household, personID: configuration.servedPerson, pages: pages, clock: store.clock)
            .register(on: signedIn, personOnly: personOnly)
        return router
    }

    /// The Hummingbird application; `onListening` hears the bound host and port (useful with
    /// port 0), after which the links the server hands out use them unless
    /// ``ServerConfiguration/publicBaseURL`` is set.
    public func application(onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in }) -> some ApplicationProtocol {
        var background = backgroundServices()
        if let interval = configuration.providerSyncInterval { background.append(ProviderSyncService(scheduler: providerSync, interval: interval)) }
        return address.application(router().buildResponder(), services: background, configuration: configuration, logger: logger, onListening: onListening)
    }

    /// The work the store needs beside requests: webhook deliveries, the audit log's last batch,
    /// ending expired links, access reviews (provider syncs are scheduled apart).
    func backgroundServices() -> [any Service] {
        let interval = configuration.limits.linkSweepInterval
        // One of many people: their first passes at a random point of the interval.
        func firstDelay() -> Duration {
            configuration.servedPerson == nil ? .zero : .milliseconds(Int64.random(in: 0..<max(1, interval.components.seconds * 1000)))
        }
        return [
            WebhookService(webhooks: appAccess.webhooks), AuditLogService(store: store),
            HostedLinkSweepService(
                store: store, interval: interval, logger: logger, firstDelay: firstDelay(), turns: turns?.sharing, person: configuration.servedPerson ?? ""),
            AccessReviewService(consent: consent, access: appAccess, interval: interval, logger: logger, firstDelay: firstDelay()),
        ]
    }

    /// Runs until SIGINT or SIGTERM.
    public func run(onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in }) async throws {
        try await application(onListening: onListening).runService()
    }
}
