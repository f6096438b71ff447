import DigitalCovidCertificates
import Foundation
import HealthStoreCore
import SmartHealthCards
import SmartHealthLinks

/// How a ``HealthServer`` listens, whom it lets in and what it allows.
public struct ServerConfiguration: Sendable {
    /// The address to bind (`127.0.0.1` by default: the server is for this machine unless told otherwise).
    public var host: String
    /// The port (0 picks a free one; ``HealthServer/run(onListening:)`` reports it).
    public var port: Int
    /// The base of the links the server hands out (consent and share pages); by default
    /// `http://HOST:PORT` of the bound address.
    public var publicBaseURL: String?
    /// The secret the person logs in to the pages with (see ``PersonAccess``).
    public var personToken: String
    /// How long an access token from `POST /token` is valid.
    public var accessTokenLifetime: Duration
    /// How long an authorization or verifiable-record request waits for the person.
    public var pendingRequestLifetime: Duration
    /// How long the person's browser session lasts.
    public var personSessionLifetime: Duration
    /// Caps on bodies, time and request rates.
    public var limits: ServerLimits
    /// Where webhooks may be delivered, and how they are retried.
    public var webhooks: WebhookPolicy
    /// How often an observer checks for changes made by other processes.
    public var observePollInterval: Duration
    /// How often an idle event stream sends a comment, so dead connections are noticed.
    public var heartbeatInterval: Duration
    /// How often every connected provider is synced (`nil`: only when the person asks).
    public var providerSyncInterval: Duration?
    /// Whether providers on this machine may be added over http (tests, a local provider).
    public var allowLoopbackProviders = false
    /// The scrypt cost of the passcodes of links made on the pages (tests make it cheap).
    public var linkPasscodeCost = KDFParameters.standard
    /// In a server for many people (``PeopleServer``), the person this part of it serves: their
    /// id starts every session cookie it sets (so the front knows whose store a browser's
    /// request goes to) and is the user handle of their passkeys (so a passkey names its person).
    /// `nil` in a server for one person.
    public var servedPerson: String?
    /// Verifies SMART Health Cards the person uploads; without one, uploaded cards are refused.
    public var cardVerifier: SmartHealthCardVerifier?
    /// Verifies EU DCCs the person uploads against its trust list; without one, none verifies.
    public var dccVerifier: DCCVerifier?

    /// Makes a configuration; the person token is random unless given.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, publicBaseURL: String? = nil, personToken: String = SecretToken.make(),
        accessTokenLifetime: Duration = .seconds(3600), pendingRequestLifetime: Duration = .seconds(3600),
        personSessionLifetime: Duration = .seconds(8 * 3600), limits: ServerLimits = ServerLimits(), webhooks: WebhookPolicy = WebhookPolicy(),
        observePollInterval: Duration = .seconds(1), heartbeatInterval: Duration = .seconds(15)
    ) {
        self.host = host
        self.port = port
        self.publicBaseURL = publicBaseURL
        self.personToken = personToken
        self.accessTokenLifetime = accessTokenLifetime
        self.pendingRequestLifetime = pendingRequestLifetime
        self.personSessionLifetime = personSessionLifetime
        self.limits = limits
        self.webhooks = webhooks
        self.observePollInterval = observePollInterval
        self.heartbeatInterval = heartbeatInterval
    }
}

/// Caps that keep one client from taking the server.
public struct ServerLimits: Sendable {
    /// The largest request body accepted (413 beyond).
    public var maxBodyBytes: Int
    /// The longest a request may take to produce its response (503 beyond); event streams
    /// are bounded by their heartbeat instead.
    public var requestTimeout: Duration
    /// Requests per second an app may sustain (token bucket refill rate).
    public var appRequestsPerSecond: Double
    /// Requests an app may make in a burst (token bucket size).
    public var appBurst: Double
    /// Wrong sign-ins and token requests a source address (or a credential from it) may make
    /// before it backs off (``FailureThrottle``); the right secret is never refused.
    public var authFailureBurst: Double
    /// The most records one query returns (a larger `limit` is cut to it).
    public var maxRecordsPerQuery: Int
    /// The most pending authorization and verifiable-record requests an app may have at once.
    public var maxPendingRequestsPerApp: Int
    /// The most webhooks an app may register.
    public var maxWebhooksPerApp: Int
    /// The most event streams an app may hold open.
    public var maxStreamsPerApp: Int
    /// How long an idle connection stays open.
    public var idleTimeout: Duration
    /// The largest file the person may upload on the pages (a phone photo is a few MiB).
    public var maxUploadBytes = 16 << 20
    /// How long a key that used up ``authFailureBurst`` waits after its next failure; each further
    /// failure doubles it, up to five minutes.
    public var authFailureBackoff: Duration = .seconds(1)
    /// How often a long-term SMART Health Link may be polled (the spec asks clients to wait at
    /// least a minute between polls), after a burst of ``linkPollBurst``; 429 with `Retry-After` beyond.
    public var linkPollInterval: TimeInterval = 60
    /// How many polls of a long-term link may come at once.
    public var linkPollBurst = 10
    /// How long a file location handed out in a manifest works (the spec allows at most an hour).
    public var linkLocationLifetime: TimeInterval = SHLManifest.locationLifetime
    /// How often links past their expiry are wiped (files, keys, passcode hashes, locations).
    public var linkSweepInterval: Duration = .seconds(600)
    /// How many link passcodes are hashed at once (each scrypt takes 32 MiB); 429 beyond.
    public var maxConcurrentPasscodeChecks = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// In a server for many people, the most provider syncs running at once across everyone
    /// (taken in turns, person by person: ``FairTurns``).
    public var maxConcurrentSyncs = 2
    /// In a server for many people, the most sharing jobs (webhook posts, sweeps of ended share
    /// links) running at once across everyone, taken in turns the same way.
    public var maxConcurrentSharingJobs = 8

    /// Makes limits; by default 64 KiB bodies, 30 s requests, 100 requests/s per app (bursts of 200), 1000 records per query.
    public init(
        maxBodyBytes: Int = 64 * 1024, requestTimeout: Duration = .seconds(30), appRequestsPerSecond: Double = 100, appBurst: Double = 200,
        authFailureBurst: Double = 20, maxRecordsPerQuery: Int = 1000, maxPendingRequestsPerApp: Int = 20, maxWebhooksPerApp: Int = 5,
        maxStreamsPerApp: Int = 4, idleTimeout: Duration = .seconds(60)
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.requestTimeout = requestTimeout
        self.appRequestsPerSecond = appRequestsPerSecond
        self.appBurst = appBurst
        self.authFailureBurst = authFailureBurst
        self.maxRecordsPerQuery = maxRecordsPerQuery
        self.maxPendingRequestsPerApp = maxPendingRequestsPerApp
        self.maxWebhooksPerApp = maxWebhooksPerApp
        self.maxStreamsPerApp = maxStreamsPerApp
        self.idleTimeout = idleTimeout
    }
}

/// Where webhooks may go and how hard the server tries.
public struct WebhookPolicy: Sendable {
    /// Whether `http://127.0.0.1…` targets are allowed (tests, a receiver on the same machine).
    public var allowLoopback: Bool
    /// Whether private-network targets (10/8, 192.168/16…) are allowed.
    public var allowPrivateAddresses: Bool
    /// Attempts per notice, the first included.
    public var maxAttempts: Int
    /// The wait before the first retry; each further retry waits twice as long.
    public var initialBackoff: Duration
    /// The longest one delivery may take.
    public var timeout: Duration

    /// Makes a policy: public https targets only, 5 attempts from 1 s apart, 5 s each.
    public init(
        allowLoopback: Bool = false, allowPrivateAddresses: Bool = false, maxAttempts: Int = 5, initialBackoff: Duration = .seconds(1),
        timeout: Duration = .seconds(5)
    ) {
        self.allowLoopback = allowLoopback
        self.allowPrivateAddresses = allowPrivateAddresses
        self.maxAttempts = maxAttempts
        self.initialBackoff = initialBackoff
        self.timeout = timeout
    }
}
