import Foundation
import HealthStoreCore
import Hummingbird
import Logging
import NetworkAddresses
import OutboundHTTP
import ProviderSync
import SMARTAuthorization
import ServiceLifecycle

/// One server for many people (`serve --people DIR`, or `serve --postgres URL` without a
/// person): each person is served by a ``HealthServer`` over their own store, mounted at
/// `/p/<id>/` — their FHIR base is `…/p/<id>/fhir`, their shared links `…/p/<id>/shl/…`, their
/// enrolment link `…/p/<id>/enrol` — and their pages are at the root for the browser signed in
/// as them (the session cookie's value begins with their id).
///
/// A person's server is opened when a request first needs it and closed when idle; no statement
/// spans people on any request path (the front reads one person's registry row to open them).
/// Everything a browser or an app holds is in that person's store, so a flow begun on one
/// process finishes on another. docs/people.md explains the routing and its attacker's view.
public struct PeopleServer: Sendable {
    /// Where the people and their stores are.
    public let registry: any PeopleRegistry
    /// The settings every person's server is made with (each gets its own base URL and person).
    public let configuration: ServerConfiguration
    let logger: Logger
    let address: ServerAddress
    let renderer: PageRenderer
    let failures: FailureThrottle
    let people: PersonServers
    let challenges: SignInChallenges
    let idleTimeout: Duration
    let clock: HealthClock
    /// The turns every person's background work takes.
    let turns: BackgroundLanes
    let credentials: StoreCredentials?
    /// The root's SMART base every person's grants may be made at.
    let shared: SharedSMARTBase
    /// The one clock for the deadlines of every request, the front's and every person's: a
    /// clock each would tick for each person with a request in flight.
    let deadlines: RequestDeadlines

    /// Makes the front and the way people's servers are opened.
    ///
    /// - Parameters:
    ///   - credentials: what unlocks each person's store (each has its own data key, wrapped for
    ///     these); `nil` for plain stores.
    ///   - maxOpenPeople: the most people whose stores are open at once.
    ///   - idleTimeout: how long a person's store stays open without a request.
    /// - Throws: ``ServerSetupError`` when the bundled resources are missing; a store error when
    ///   the registry's server secret cannot be read.
    public init(
        registry: any PeopleRegistry, credentials: StoreCredentials?, configuration: ServerConfiguration, logger: Logger, clock: HealthClock = .system,
        maxOpenPeople: Int = 1000, idleTimeout: Duration = .seconds(600), webhookSender: (any WebhookSender)? = nil,
        resolver: any HostResolver = SystemResolver()
    ) async throws {
        self.registry = registry
        self.configuration = configuration
        self.logger = logger
        self.idleTimeout = idleTimeout
        self.clock = clock
        let renderer = try await PageRenderer.load()
        self.renderer = renderer
        let address = ServerAddress(configuration: configuration)
        self.address = address
        let limits = configuration.limits
        let failures = FailureThrottle(freeFailures: Int(limits.authFailureBurst.rounded(.down)), baseBackoff: limits.authFailureBackoff)
        self.failures = failures
        challenges = SignInChallenges(secret: try await registry.serverSecret("passkey-sign-in"))
        let shared = SharedSMARTBase(
            address: address, signer: try IDTokenSigner(seed: try await registry.serverSecret("shared-id-token")))
        self.shared = shared
        let sender = webhookSender ?? PinnedWebhookSender(resolver: resolver)
        let turns = BackgroundLanes(limits: limits)
        self.turns = turns
        let deadlines = RequestDeadlines(timeout: limits.requestTimeout)
        self.deadlines = deadlines
        self.credentials = credentials
        people = PersonServers(capacity: maxOpenPeople) { id in
            guard try await registry.entry(id: id) != nil else { throw PeopleServerError.unknownPerson(id) }
            let store: DatabaseHealthStore
            do { store = try await registry.openStore(id: id, credentials: credentials, clock: clock) } catch {
                throw PeopleServerError.storeUnavailable(person: id, reason: "\(error)")
            }
            if store.isLocked { throw PeopleServerError.storeUnavailable(person: id, reason: "the store is locked (give the key that unlocks it)") }
            // The operator's catalogue: a copy of each app the person does not have yet, so their
            // grants, tokens and audit are theirs like any app's.
            do {
                for app in try await registry.catalogueApps() where try await store.app(id: app.registration.id) == nil {
                    // Another process opening the same person may have copied it first.
                    do { try await store.saveApp(app) } catch { if try await store.app(id: app.registration.id) == nil { throw error } }
                }
            } catch {
                throw PeopleServerError.storeUnavailable(person: id, reason: "the catalogue could not be copied: \(error)")
            }
            var own = configuration
            own.publicBaseURL = address.baseURL + "/p/" + id
            own.servedPerson = id
            // Nobody is told this token: people sign in with passkeys, recovery codes and invites.
            own.personToken = SecretToken.make()
            var named = logger
            named[metadataKey: "person"] = "\(id)"
            let personLogger = named
            let household = Household(
                name: { try await registry.entry(id: $0)?.name },
                storage: { id in
                    guard try await registry.entry(id: id) != nil else { return nil }
                    return try await registry.openStore(id: id, credentials: credentials, clock: clock)
                })
            let server = try await HealthServer(
                store: store, configuration: own, logger: personLogger, webhookSender: sender, resolver: resolver, renderer: renderer, failures: failures,
                household: household, turns: turns, shared: shared, deadlines: deadlines)
            let services = server.backgroundServices()
            let work = Task.detached {
                await withTaskGroup(of: Void.self) { group in
                    for service in services {
                        group.addTask {
                            do { try await service.run() } catch is CancellationError {} catch {
                                personLogger.warning("background work stopped", metadata: ["error": "\(error)"])
                            }
                        }
                    }
                }
            }
            return PersonServers.Open(server: server, responder: server.router().buildResponder(), services: work)
        }
    }

    /// The base URL of the server (people's bases are under it at `/p/<id>`).
    public var baseURL: String { address.baseURL }

    /// How many people's stores are open now.
    public var openPeople: Int { people.openCount }

    /// A person's server, opened when needed (tests issue tokens and read its parts through it).
    package func server(for id: String) async throws -> HealthServer { try await people.server(id).server }

    /// Closes people's stores idle for `idle` (the idle service does this on its own schedule).
    package func closeIdle(_ idle: Duration) async { await people.closeIdle(idle) }

    /// Closes every open store (the application is stopping).
    func closeEveryone() async { await people.closeAll() }

    /// Closes the stores of people removed from the registry since they were opened (the idle
    /// service does this on its own schedule). A registry that cannot be read closes nothing.
    package func closeRemoved() async {
        guard !people.openIDs.isEmpty, let everyone = try? await registry.list() else { return }
        await people.closeRemoved(registered: Set(everyone.map(\.id)))
    }

    /// One pass of every person's provider syncs, waiting for all of them (``PeopleSyncService``).
    package func syncEveryone() async {
        guard let everyone = try? await registry.list() else { return }
        await withTaskGroup(of: Void.self) { group in
            for entry in everyone {
                group.addTask {
                    guard let store = try? await registry.openStore(id: entry.id, credentials: credentials, clock: clock), !store.isLocked,
                        let providers = try? await store.providers(), providers.contains(where: { $0.status == .connected })
                    else { return }
                    guard let open = try? await people.server(entry.id) else { return }
                    await open.server.providerSync.syncConnected()
                }
            }
        }
    }

    /// Every request: a person's path, a signed-in browser, or the front.
    func responder() -> PeopleResponder {
        let front = Router(context: HealthRequestContext.self)
        front.add(middleware: SMARTCORSMiddleware())
        front.add(middleware: RequestLogMiddleware(logger: logger))
        front.add(middleware: ErrorMappingMiddleware(logger: logger))
        front.add(middleware: TimeoutMiddleware(deadlines: deadlines))
        let routes = FrontRoutes(
            people: people, challenges: challenges, failures: failures, renderer: renderer, address: address, bodyLimit: configuration.limits.maxBodyBytes,
            clock: clock)
        let cookie = SessionCookie(publicBaseURL: configuration.publicBaseURL)
        routes.register(on: front)
        routes.registerSwitch(on: front, cookie: cookie)
        SharedBaseRoutes(shared: shared, bodyLimit: configuration.limits.maxBodyBytes).register(on: front)
        return PeopleResponder(front: front.buildResponder(), people: people, cookie: cookie, bodyLimit: configuration.limits.maxBodyBytes)
    }

    /// The Hummingbird application; `onListening` hears the bound host and port.
    public func application(onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in }) -> some ApplicationProtocol {
        let services: [any Service] = [PeopleIdleService(server: self, idleTimeout: idleTimeout)]
            + (configuration.providerSyncInterval.map { [PeopleSyncService(server: self, interval: $0)] } ?? [])
        return address.application(responder(), services: services, configuration: configuration, logger: logger, onListening: onListening)
    }

    /// Runs until SIGINT or SIGTERM.
    public func run(onListening: @escaping @Sendable (String, Int) async -> Void = { _, _ in }) async throws {
        try await application(onListening: onListening).runService()
    }
}

/// Syncs the connected providers of every person at an interval, each person's syncs in the
/// shared turns (``FairTurns``): a person with a huge sync holds one slot, and the others take
/// theirs in rotation. Reading the list of people is the operator's view, on no request path; a
/// person with no connected provider is not opened as a server.
struct PeopleSyncService: Service {
    let server: PeopleServer
    let interval: Duration

    func run() async throws {
        let server = self.server
        let interval = self.interval
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await server.syncEveryone()
                try? await Task.sleep(for: interval)
            }
        }
    }
}

/// Closes people's stores nobody used for a while or whose person was removed, and every one
/// at a graceful shutdown (their background work flushes the audit log's last batch as it ends).
struct PeopleIdleService: Service {
    let server: PeopleServer
    let idleTimeout: Duration

    func run() async throws {
        let server = self.server
        let idleTimeout = self.idleTimeout
        let check = min(idleTimeout / 4, .seconds(30))
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: check)
                await server.closeRemoved()
                await server.closeIdle(idleTimeout)
            }
        }
        await server.closeEveryone()
    }
}

