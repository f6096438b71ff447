import Foundation
import HealthStore
import Logging
import OutboundHTTP
import Synchronization

/// Everything the routes share: the store, the consent manager, the in-memory tokens,
/// sessions, pending requests and webhooks, the limiters and the page templates.
final class ServerState: Sendable {
    let store: any HealthStore
    let consent: ConsentManager
    let configuration: ServerConfiguration
    let tokens: AccessTokens
    let sessions: PersonSessions
    let appLimiter: RateLimiter
    let authFailures: RateLimiter
    let pending: PendingRequests
    let webhooks: Webhooks
    let pages: PageRenderer
    let logger: Logger
    private let base = Mutex<String>("")
    private let streams = Mutex<[String: Int]>([:])
    private let views = Mutex<[String: AppView]>([:])

    init(store: any HealthStore, configuration: ServerConfiguration, pages: PageRenderer, sender: any WebhookSender, resolver: any HostResolver, logger: Logger) {
        self.store = store
        self.consent = ConsentManager(store: store)
        self.configuration = configuration
        self.tokens = AccessTokens(lifetime: configuration.accessTokenLifetime, clock: store.clock)
        self.sessions = PersonSessions(lifetime: configuration.personSessionLifetime, clock: store.clock)
        self.appLimiter = RateLimiter(rate: configuration.limits.appRequestsPerSecond, burst: configuration.limits.appBurst)
        self.authFailures = RateLimiter(rate: 1, burst: configuration.limits.authFailureBurst)
        self.pending = PendingRequests(
            lifetime: configuration.pendingRequestLifetime, clock: store.clock, maxPerApp: configuration.limits.maxPendingRequestsPerApp)
        self.webhooks = Webhooks(
            sender: sender, resolver: resolver, policy: configuration.webhooks, store: store, pollInterval: configuration.observePollInterval, logger: logger)
        self.pages = pages
        self.logger = logger
        base.withLock {
            $0 = configuration.publicBaseURL ?? "http://\(configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host):\(configuration.port)"
        }
    }

    /// The base of the links handed out (`http://127.0.0.1:8080`), without a trailing slash.
    var baseURL: String {
        get { base.withLock { $0 } }
        set { base.withLock { $0 = newValue.hasSuffix("/") ? String(newValue.dropLast()) : newValue } }
    }

    /// An app's view of the store, looked up once per app (registrations do not change).
    func view(appID: String) async -> AppView? {
        if let v = views.withLock({ $0[appID] }) { return v }
        guard let v = try? await consent.view(appID: appID) else { return nil }
        views.withLock { $0[appID] = v }
        return v
    }

    /// Counts an event stream opened by an app; `false` when it holds too many already.
    func openStream(appID: String) -> Bool {
        streams.withLock { map in
            guard map[appID, default: 0] < configuration.limits.maxStreamsPerApp else { return false }
            map[appID, default: 0] += 1
            return true
        }
    }

    /// Counts an event stream closed.
    func closeStream(appID: String) {
        streams.withLock { map in map[appID] = max(0, map[appID, default: 1] - 1) }
    }
}
