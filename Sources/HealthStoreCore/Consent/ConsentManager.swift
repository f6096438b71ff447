import ClinicalRecords
import Crypto
import Foundation

/// The person's side of consent: registering apps, deciding and approving grants, revoking,
/// reading the audit log, and picking cards to share once.
///
/// All policy lives here and in ``AppView``; the engine only stores (``ConsentStorage``), so
/// every engine and every surface (command line, server) obeys the same rules.
public struct ConsentManager: Sendable {
    /// Where apps, grants, the audit log and card shares are kept; it only stores, and this manager applies the rules.
    public let store: any HealthStore

    /// Makes a manager over a store.
    public init(store: any HealthStore) { self.store = store }

    // MARK: Apps

    /// Registers an app; the secret in the answer is shown once and stored only as a digest.
    ///
    /// - Throws: ``ConsentError/invalidRegistration(_:)`` (see ``AppRegistration``).
    public func register(
        name: String, purpose: String, privacyPolicyURL: URL, requestedTypes: Set<HealthDataType>,
        requiredTypes: Set<HealthDataType> = [], redirectURIs: [URL] = [], clientType: ClientType = .confidentialSymmetric, jwks: String? = nil,
        jwksURI: URL? = nil
    ) async throws -> AppCredentials {
        let (app, credentials) = try Self.newApp(
            name: name, purpose: purpose, privacyPolicyURL: privacyPolicyURL, requestedTypes: requestedTypes, requiredTypes: requiredTypes,
            redirectURIs: redirectURIs, clientType: clientType, jwks: jwks, jwksURI: jwksURI, date: store.clock.now)
        try await store.saveApp(app)
        return credentials
    }

    /// A new app, checked as ``register(name:purpose:privacyPolicyURL:requestedTypes:requiredTypes:redirectURIs:clientType:jwks:jwksURI:)``
    /// checks it, and its credentials, without storing it: what an operator's catalogue of apps
    /// for every person keeps (``PeopleRegistry/addCatalogueApp(_:)``).
    public static func newApp(
        name: String, purpose: String, privacyPolicyURL: URL, requestedTypes: Set<HealthDataType>, requiredTypes: Set<HealthDataType> = [],
        redirectURIs: [URL] = [], clientType: ClientType = .confidentialSymmetric, jwks: String? = nil, jwksURI: URL? = nil, date: Date
    ) throws -> (StoredApp, AppCredentials) {
        let registration = try AppRegistration(
            id: UUID().uuidString.lowercased(), name: name, purpose: purpose, privacyPolicyURL: privacyPolicyURL,
            requestedTypes: requestedTypes, requiredTypes: requiredTypes, registeredDate: date, redirectURIs: redirectURIs,
            clientType: clientType, jwks: jwks, jwksURI: jwksURI)
        // Only a symmetric client is told its secret; the others get one no one ever sees, so
        // the secret check fails for them like any wrong secret.
        let secret = AppSecret.make()
        return (
            StoredApp(registration: registration, secretDigest: AppSecret.digest(secret)),
            AppCredentials(appID: registration.id, secret: clientType == .confidentialSymmetric ? secret : "")
        )
    }

    /// An app by id.
    ///
    /// - Throws: ``ConsentError/appNotFound(_:)``.
    public func app(_ id: String) async throws -> StoredApp {
        guard let app = try await store.app(id: id) else { throw ConsentError.appNotFound(id) }
        return app
    }

    /// Every registered app.
    public func apps() async throws -> [StoredApp] { try await store.apps() }

    /// The view of the store an app has, after checking its secret (OAuth2 client credentials).
    ///
    /// - Throws: ``ConsentError/appNotFound(_:)`` or ``ConsentError/invalidAppSecret``.
    public func authenticate(appID: String, secret: String) async throws -> AppView {
        let app = try await self.app(appID)
        guard app.registration.clientType == .confidentialSymmetric, app.verify(secret: secret) else { throw ConsentError.invalidAppSecret }
        return AppView(app: app.registration, store: store, anchors: try await anchorSealer())
    }

    /// The view of the store an app has, without a secret: for the person's own tools
    /// (`healthrecords records --as-app`) and tests.
    public func view(appID: String) async throws -> AppView {
        AppView(app: try await app(appID).registration, store: store, anchors: try await anchorSealer())
    }

    /// The view of the store an app has, made from its row as just read (a request that
    /// checked the app's access revision has it already) and, when read with it, its grants:
    /// the view's first look at the grants uses those, later ones read the store.
    public func view(of app: StoredApp, grants: [ReadGrant]? = nil) async throws -> AppView {
        AppView(app: app.registration, store: store, anchors: try await anchorSealer(), grants: grants)
    }

    // MARK: Grants

    /// Records the person's decision on an app's request. Types not named stay undecided;
    /// types named again are decided anew (an allowed type's watermark moves to now).
    ///
    /// The decision is stored even when it denies a required type; the call then throws
    /// ``ConsentError/requiredAuthorizationDenied`` — what the app's authorization request
    /// answers — without saying which type.
    ///
    /// - Throws: ``ConsentError/appNotFound(_:)``, ``ConsentError/typeNotRequested(_:)``,
    ///   ``ConsentError/conflictingDecision(_:)``, ``ConsentError/requiredAuthorizationDenied``.
    @discardableResult
    public func decide(appID: String, _ decision: AuthorizationDecision) async throws -> [ReadGrant] {
        let app = try await self.app(appID).registration
        for t in decision.allow.union(decision.deny).sorted() where !app.requestedTypes.contains(t) {
            throw ConsentError.typeNotRequested(t)
        }
        if let both = decision.allow.intersection(decision.deny).sorted().first { throw ConsentError.conflictingDecision(both) }
        let anchor = try await store.reserveAnchor()
        let now = store.clock.now
        let made = decision.allow.sorted().map {
            ReadGrant(
                appID: appID, type: $0, decision: .allowed, newData: decision.newData, approvedThrough: anchor, changedAnchor: anchor, decidedDate: now,
                history: decision.history(for: $0))
        } + decision.deny.sorted().map {
            ReadGrant(appID: appID, type: $0, decision: .denied, newData: decision.newData, approvedThrough: anchor, changedAnchor: anchor, decidedDate: now)
        }
        try await store.saveGrants(made)
        try await AppView(app: app, store: store, anchors: try await anchorSealer()).checkRequiredAuthorization()
        return made
    }

    /// Approves new data for an app's allowed types under "ask" (all of them, or some): the
    /// watermark moves to now, so records added until now become visible. Returns how many
    /// grants moved.
    @discardableResult
    public func approveNewData(appID: String, types: Set<HealthDataType>? = nil) async throws -> Int {
        _ = try await app(appID)
        let pending = try await store.grants(appID: appID).filter {
            $0.decision == .allowed && $0.newData == .ask && (types?.contains($0.type) ?? true)
        }
        guard !pending.isEmpty else { return 0 }
        let anchor = try await store.reserveAnchor()
        let now = store.clock.now
        try await store.saveGrants(pending.map {
            var g = $0
            g.approvedThrough = anchor
            g.changedAnchor = anchor
            g.decidedDate = now
            return g
        })
        return pending.count
    }

    /// An app's grants sorted by type; an unknown app throws ``ConsentError/appNotFound(_:)`` rather than answering none.
    public func grants(appID: String) async throws -> [ReadGrant] {
        _ = try await app(appID)
        return try await store.grants(appID: appID).sorted { $0.type < $1.type }
    }

    /// Revokes an app: its grants and uncollected card shares are removed and its access
    /// revision moves on, so every token, event stream and webhook it held ends (a server
    /// checks the revision on each use). The app sees nothing and should ask again.
    /// Returns how many grants there were.
    @discardableResult
    public func revoke(appID: String) async throws -> Int {
        _ = try await app(appID)
        return try await store.removeAccess(appID: appID)
    }

    /// The sealer of the anchors apps see, over the store's secret.
    func anchorSealer() async throws -> AnchorSealer { AnchorSealer(secret: try await store.anchorSecret()) }

    // MARK: Audit

    /// The audit log: every read by an app, oldest first.
    public func auditLog(appID: String? = nil) async throws -> [AuditEntry] {
        if let appID { _ = try await app(appID) }
        return try await store.auditEntries(appID: appID)
    }

    /// The newest `limit` entries of an app's audit log, newest first, read as one page.
    public func auditLog(appID: String, newestFirst limit: Int, offset: Int = 0) async throws -> [AuditEntry] {
        _ = try await app(appID)
        return try await store.auditEntries(appID: appID, newestFirst: limit, offset: offset)
    }

    // MARK: Verifiable records

    /// The cards a request offers the person: verified cards with every requested type and a
    /// relevant date in the interval.
    public func offeredCards(for request: VerifiableRecordRequest) async throws -> [StoredVerifiableRecord] {
        _ = try await app(request.appID)
        let cards = try await store.verifiableRecords(request.query)
        // A card of a type the app reads through a history window is offered only when it is
        // dated inside the window: a share the app asks for reaches no further back than its
        // reads do. (Cards of other types are the person's pick alone.)
        let now = store.clock.now
        var since: [ClinicalType: Date] = [:]
        for g in try await store.grants(appID: request.appID) where g.decision == .allowed {
            if case .clinical(let t) = g.type, let date = g.history.earliestDate(at: now) { since[t] = date }
        }
        guard !since.isEmpty else { return cards }
        return cards.filter { card in
            let limits = card.record.recordTypes.compactMap(Self.clinicalType(ofCardType:)).compactMap { since[$0] }
            guard let latest = limits.max() else { return true }
            guard let date = card.record.relevantDate else { return false }
            return date >= latest
        }
    }

    /// The clinical type a card's record type is about (`…#immunization`, `…#laboratory`).
    static func clinicalType(ofCardType type: String) -> ClinicalType? {
        guard let fragment = type.split(separator: "#").last else { return nil }
        switch fragment {
        case "immunization": return .immunization
        case "laboratory": return .labResult
        default: return nil
        }
    }

    /// Shares the cards the person picked from a request, once: returns the one-time token the
    /// app redeems with ``AppView/takeSharedCards(token:)``. Picking none is a valid answer
    /// (the app then gets an empty list, as if there were no cards).
    ///
    /// - Throws: ``ConsentError/cardNotOffered(_:)`` for a card the request did not offer.
    public func shareCards(_ request: VerifiableRecordRequest, picked: [String]) async throws -> String {
        let offered = Set(try await offeredCards(for: request).map(\.identifier))
        for id in picked where !offered.contains(id) { throw ConsentError.cardNotOffered(id) }
        let token = AppSecret.make()
        try await store.saveCardShare(
            CardShare(tokenDigest: AppSecret.digest(token), appID: request.appID, cardIdentifiers: picked, createdDate: store.clock.now))
        return token
    }
}
