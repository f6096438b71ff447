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
    let authFailures: FailureThrottle
    let sessionCookie: SessionCookie
    let pending: PendingRequests
    let webhooks: Webhooks
    let pages: PageRenderer
    let logger: Logger
    private let base = Mutex<String>("")
    private let streams = Mutex<[String: [String: @Sendable () -> Void]]>([:])
    private let views = Mutex<[String: AppView]>([:])

    init(store: any HealthStore, configuration: ServerConfiguration, pages: PageRenderer, sender: any WebhookSender, resolver: any HostResolver, logger: Logger) {
        self.store = store
        self.consent = ConsentManager(store: store)
        self.configuration = configuration
        self.tokens = AccessTokens(lifetime: configuration.accessTokenLifetime, clock: store.clock)
        self.sessions = PersonSessions(lifetime: configuration.personSessionLifetime, clock: store.clock)
        self.appLimiter = RateLimiter(rate: configuration.limits.appRequestsPerSecond, burst: configuration.limits.appBurst)
        self.authFailures = FailureThrottle(freeFailures: Int(configuration.limits.authFailureBurst.rounded(.down)))
        self.sessionCookie = SessionCookie(publicBaseURL: configuration.publicBaseURL)
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

    /// Counts an event stream opened by an app, with what ends it; `nil` when the app holds
    /// too many already, else the stream's id for ``closeStream(appID:id:)``.
    func openStream(appID: String, end: @escaping @Sendable () -> Void) -> String? {
        streams.withLock { map in
            guard map[appID, default: [:]].count < configuration.limits.maxStreamsPerApp else { return nil }
            let id = SecretToken.make()
            map[appID, default: [:]][id] = end
            return id
        }
    }

    /// Counts an event stream closed.
    func closeStream(appID: String, id: String) {
        streams.withLock { map in
            map[appID]?[id] = nil
            if map[appID]?.isEmpty == true { map[appID] = nil }
        }
    }

    /// Ends everything an app holds in this process: tokens, event streams, webhooks and
    /// requests waiting for the person. Called when the person revokes it here, and when a
    /// request finds its access revision moved on (revoked from another process).
    func endAccess(appID: String) {
        tokens.revokeAll(appID: appID)
        let closers = streams.withLock { map in map.removeValue(forKey: appID).map { Array($0.values) } ?? [] }
        for close in closers { close() }
        webhooks.removeAll(appID: appID)
        pending.removeAll(appID: appID)
    }

    /// Whether an app's access is still the one a token or stream was given under; ends its
    /// access here when it is not (or when the app is gone).
    func accessIsCurrent(appID: String, revision: Int) async -> Bool {
        guard let stored = try? await store.app(id: appID), stored.accessRevision == revision else {
            endAccess(appID: appID)
            return false
        }
        return true
    }
}
