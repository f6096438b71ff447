import Foundation
import HealthStoreCore
import Logging
import OutboundHTTP
import ProviderSync
import SMARTAuthorization
import SmartHealthCards
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
    /// Asymmetric clients' key sets from their JWKS URLs (fetched under the webhook address
    /// rules), kept between requests.
    let clientKeySets: ClientKeySets
    /// Provider syncs in the background: "Sync now" and the interval.
    let providerSync: SyncScheduler
    private let signer = Mutex<IDTokenSigner?>(nil)
    private let lastPurge = Mutex<Date>(.distantPast)
    private let base = Mutex<String>("")
    private let streams = Mutex<[String: [String: (revision: Int, end: @Sendable () -> Void)]]>([:])
    private let views = Mutex<[String: AppView]>([:])

    init(store: any HealthStore, configuration: ServerConfiguration, pages: PageRenderer, sender: any WebhookSender, resolver: any HostResolver, logger: Logger) {
        self.store = store
        self.consent = ConsentManager(store: store)
        self.configuration = configuration
        self.tokens = AccessTokens(store: store, lifetime: configuration.accessTokenLifetime)
        self.sessions = PersonSessions(store: store, lifetime: configuration.personSessionLifetime)
        self.appLimiter = RateLimiter(rate: configuration.limits.appRequestsPerSecond, burst: configuration.limits.appBurst)
        self.authFailures = FailureThrottle(freeFailures: Int(configuration.limits.authFailureBurst.rounded(.down)))
        self.sessionCookie = SessionCookie(publicBaseURL: configuration.publicBaseURL)
        self.pending = PendingRequests(
            lifetime: configuration.pendingRequestLifetime, clock: store.clock, maxPerApp: configuration.limits.maxPendingRequestsPerApp)
        self.webhooks = Webhooks(
            sender: sender, resolver: resolver, policy: configuration.webhooks, store: store, pollInterval: configuration.observePollInterval, logger: logger)
        self.pages = pages
        self.logger = logger
        let storeClock = store.clock
        self.providerSync = SyncScheduler(syncer: ProviderSyncer(store: store, clock: { storeClock.now }))
        let keyFetcher = PinnedHTTPFetcher(
            policy: FetchPolicy(allowLoopback: configuration.webhooks.allowLoopback, allowPrivateAddresses: configuration.webhooks.allowPrivateAddresses),
            resolver: resolver)
        self.clientKeySets = ClientKeySets { url throws(FetchError) in try await keyFetcher.getCacheable(url) }
        base.withLock {
            $0 = configuration.publicBaseURL ?? "http://\(configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host):\(configuration.port)"
        }
    }

    /// The base of the links handed out (`http://127.0.0.1:8080`), without a trailing slash.
    var baseURL: String {
        get { base.withLock { $0 } }
        set { base.withLock { $0 = newValue.hasSuffix("/") ? String(newValue.dropLast()) : newValue } }
    }

    /// The id-token signer: its key is derived from the store's secret, so it survives restarts
    /// and every process serving the store signs with the same key.
    func idTokenSigner() async throws -> IDTokenSigner {
        if let s = signer.withLock({ $0 }) { return s }
        let made = try IDTokenSigner(seed: try await store.anchorSecret())
        signer.withLock { $0 = made }
        return made
    }

    /// Removes expired credentials from the store, at most once every ten minutes (called when
    /// credentials are issued, so a busy server keeps the table small and an idle one does no work).
    func purgeExpiredCredentials() async {
        let now = store.clock.now
        let due = lastPurge.withLock { last in
            guard now.timeIntervalSince(last) >= 600 else { return false }
            last = now
            return true
        }
        if due { _ = try? await store.deleteCredentials(expiredBefore: now) }
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
    func openStream(appID: String, revision: Int, end: @escaping @Sendable () -> Void) -> String? {
        streams.withLock { map in
            guard map[appID, default: [:]].count < configuration.limits.maxStreamsPerApp else { return nil }
            let id = SecretToken.make()
            map[appID, default: [:]][id] = (revision, end)
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

    /// Ends what an app holds in this process under access revisions older than `revision`:
    /// tokens, event streams and webhooks (what it was given after the revocation stays).
    func endAccess(appID: String, before revision: Int) {
        // Tokens carry the revision they were issued under and are checked against the app's
        // current one on every use (and revoking deletes them from the store).
        let closers: [@Sendable () -> Void] = streams.withLock { map in
            let old = (map[appID] ?? [:]).filter { $0.value.revision < revision }
            for id in old.keys { map[appID]?[id] = nil }
            if map[appID]?.isEmpty == true { map[appID] = nil }
            return old.values.map(\.end)
        }
        for close in closers { close() }
        webhooks.removeAll(appID: appID, before: revision)
    }

    /// Ends everything an app holds in this process, requests waiting for the person included:
    /// the person revoked it here.
    func endAllAccess(appID: String) {
        endAccess(appID: appID, before: .max)
        pending.removeAll(appID: appID)
    }

    /// What checking an app's access revision found.
    enum AccessCheck {
        /// The revision is the app's current one.
        case current
        /// The app was revoked (from any process) or removed since; what it held is ended.
        case revoked
        /// The store could not be read now; nothing is ended.
        case unavailable
    }

    /// Whether an app's access is still the one a token or stream was given under; when it was
    /// revoked since, ends here what it held under older revisions.
    func checkAccess(appID: String, revision: Int) async -> AccessCheck {
        let stored: StoredApp?
        do { stored = try await store.app(id: appID) } catch { return .unavailable }
        guard let stored else {
            endAllAccess(appID: appID)
            return .revoked
        }
        guard stored.accessRevision == revision else {
            endAccess(appID: appID, before: stored.accessRevision)
            return .revoked
        }
        return .current
    }
}
