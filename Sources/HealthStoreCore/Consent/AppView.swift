import ClinicalRecords
import FHIR
import Foundation

/// The store as one app sees it: every query path applies the app's grants, and every read is
/// written to the audit log.
///
/// Denial looks exactly like no data: a denied or undecided type returns what an empty store
/// would — empty lists, zero counts, `nil` lookups, the empty store's anchors and the same
/// errors. It costs the same too: the same statement runs with a filter that matches nothing,
/// decided inside the database, so timings say neither whether a type was granted nor how many
/// hidden records exist. Under "ask before sharing new data", records first added after the
/// approval watermark are invisible in the same way.
///
/// Every stored resource has one consent category (``ConsentCategory``): a clinical type, or a
/// context category (personal details, visits, claims…) granted like a type. A resource is
/// visible only through its own category's grant, on every path (by id, lists, changes).
///
/// Anchors are the app's own: the latest change the app may see (``QueryAnchor/initial`` when
/// it sees nothing, as in an empty store). When a grant changes (allowed, approved) some
/// records become visible without changing; an anchored query from an anchor older than the
/// change returns that type's visible records again, so none are missed. Outside the store an
/// app sees anchors only as ``anchorToken(_:)`` tokens, which hide how many changes it cannot
/// see lie between two of them.
public struct AppView: Sendable {
    /// The app this view answers for: its grants filter every query, and its id goes into the audit log.
    public let app: AppRegistration
    let store: any HealthStore
    /// Seals the anchors the app is shown.
    let anchors: AnchorSealer
    /// Grants read together with the request's token, for the view's first look at them.
    private let readGrants: ReadGrantsOnce?

    init(app: AppRegistration, store: any HealthStore, anchors: AnchorSealer, grants: [ReadGrant]? = nil) {
        self.app = app
        self.store = store
        self.anchors = anchors
        readGrants = grants.map(ReadGrantsOnce.init)
    }

    /// The opaque token the app is shown for an anchor.
    public func anchorToken(_ anchor: QueryAnchor) -> String { anchors.token(anchor, appID: app.id) }

    /// The anchor behind a token this app was given.
    ///
    /// - Throws: ``ConsentError/invalidAnchor`` for anything else.
    public func anchor(token: String) throws(ConsentError) -> QueryAnchor { try anchors.anchor(token, appID: app.id) }

    // MARK: Authorization

    /// Whether the app should show the authorization sheet for these types.
    public func requestStatus(for types: Set<HealthDataType>) async throws -> AuthorizationRequestStatus {
        let grants = try await grantsByType()
        for t in types.sorted() {
            guard let g = grants[t] else { return .shouldRequest }
            if g.decision == .allowed, g.newData == .ask, try await store.hasData(ofType: t, addedAfter: g.approvedThrough) {
                return .shouldRequest
            }
        }
        return .unnecessary
    }

    /// What the app's authorization request answers once the person decided.
    ///
    /// - Throws: ``ConsentError/requiredAuthorizationDenied`` when any required type is denied
    ///   (without saying which).
    public func checkRequiredAuthorization() async throws {
        let grants = try await grantsByType()
        if app.requiredTypes.contains(where: { grants[$0]?.decision == .denied }) {
            throw ConsentError.requiredAuthorizationDenied
        }
    }

    /// The earliest date the app may read of each type (HealthKit's
    /// `earliestAuthorizedSampleDate(for:)`): a date only for a type allowed with a history
    /// window; denied, undecided and all-of-history types are absent alike.
    public func earliestDates(for types: Set<HealthDataType>) async throws -> [HealthDataType: Date] {
        let grants = try await grantsByType()
        let now = store.clock.now
        var dates: [HealthDataType: Date] = [:]
        for t in types {
            guard let g = grants[t], g.decision == .allowed, let date = g.history.earliestDate(at: now) else { continue }
            dates[t] = date
        }
        try await audit("earliest-dates", types: types.sorted(), count: dates.count)
        return dates
    }

    // MARK: Clinical records

    /// Records matching a query, among those the app may see.
    public func records(_ query: RecordQuery) async throws -> [ClinicalRecord] {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        let windows = try await visibility().records(query.type)
        var q = query
        q.predicate = Self.and(query.predicate, .visible(windows))
        let result = try await store.records(q)
        try await audit("records", clinical: query.type, count: result.count)
        return result
    }

    /// How many records the app may see match a query (ignoring its limit).
    public func count(_ query: RecordQuery) async throws -> Int {
        let windows = try await visibility().records(query.type)
        var q = query
        q.predicate = Self.and(query.predicate, .visible(windows))
        let n = try await store.count(q)
        try await audit("count", clinical: query.type, count: n)
        return n
    }

    /// A record or context resource by identity; `nil` when the app may not see it (its
    /// category is not granted, or under "ask" it is newer than the approval) or it is missing.
    public func resource(_ identity: RecordIdentity) async throws -> StoredResource? {
        let v = try await visibility()
        let found = try await store.resource(identity, visible: v.recordWindows)
        try await audit("resource", types: found.map { [HealthDataType($0.category)] } ?? [], count: found == nil ? 0 : 1)
        return found
    }

    /// Context resources of a FHIR type (the Patient…) whose categories the app was granted.
    public func contextResources(ofType type: FHIRResourceType, source: String?) async throws -> [StoredResource] {
        let v = try await visibility()
        let result = try await store.contextResources(ofType: type, source: source, visible: v.recordWindows)
        try await audit("context", types: Array(Set(result.map { HealthDataType($0.category) })).sorted(), count: result.count)
        return result
    }

    /// The sources the app sees at least one record or sample from.
    public func sources() async throws -> [RecordSource] {
        let v = try await visibility()
        var result: [RecordSource] = []
        if !v.recordWindows.isEmpty || !v.sampleWindows.isEmpty {
            for s in try await store.sources() {
                if try await seesRecords(fromSource: s.identifier, v) {
                    result.append(s)
                } else if !v.sampleWindows.isEmpty,
                    !(try await store.samples(QuantitySampleQuery(type: nil, predicate: .and([.source(s.identifier), .visible(v.sampleWindows)]), limit: 1))).isEmpty
                {
                    result.append(s)
                }
            }
        }
        try await audit("sources", types: [], count: result.count)
        return result
    }

    /// What changed since an anchor, among the records the app may see.
    public func changes(_ query: AnchoredQuery) async throws -> AnchoredQueryResult {
        let result = try await recordChanges(query)
        try await audit("changes", clinical: query.type, count: result.added.count + result.deleted.count)
        return result
    }

    /// The app's current anchor: its latest visible change.
    public func currentAnchor() async throws -> QueryAnchor {
        try await appAnchor(try await visibility())
    }

    // MARK: Quantity samples

    /// Samples matching a query, among those the app may see.
    public func samples(_ query: QuantitySampleQuery) async throws -> [StoredQuantitySample] {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        // Run even when nothing is granted (an empty window list matches nothing): equal cost.
        let windows = try await visibility().samples(query.type)
        var q = query
        q.predicate = query.predicate.map { .and([$0, .visible(windows)]) } ?? .visible(windows)
        let result = try await store.samples(q)
        try await audit("samples", quantity: query.type, count: result.count)
        return result
    }

    /// Samples saved or deleted since an anchor, among those the app may see.
    public func sampleChanges(_ query: AnchoredSampleQuery) async throws -> AnchoredSampleQueryResult {
        let result = try await sampleChangesUnaudited(query)
        try await audit("sample-changes", quantity: query.type, count: result.added.count + result.deleted.count)
        return result
    }

    // MARK: Verifiable records

    /// The cards the person picked for this app, once: a second call with the same token fails.
    ///
    /// - Throws: ``ConsentError/invalidShareToken`` for an unknown, used or another app's token.
    public func takeSharedCards(token: String) async throws -> [StoredVerifiableRecord] {
        guard let share = try await store.takeCardShare(tokenDigest: AppSecret.digest(token)), share.appID == app.id else {
            throw ConsentError.invalidShareToken
        }
        var cards: [StoredVerifiableRecord] = []
        if !share.cardIdentifiers.isEmpty {
            let picked = Set(share.cardIdentifiers)
            cards = try await store.verifiableRecords(VerifiableRecordQuery()).filter { picked.contains($0.identifier) }
        }
        try await audit("cards", types: [], count: cards.count)
        return cards
    }

    // MARK: Internals

    /// The app's grants that allow reading, as windows, with history windows fixed at `now`.
    struct Visibility: Sendable {
        var grants: [HealthDataType: ReadGrant]
        var now: Date
        /// The identity keys of the records behind the medications picked for the app; `nil`
        /// when it has no pick (its medication grant then reads every medication record).
        var medications: [Data]? = nil

        /// Windows of every granted consent category: clinical types and context categories.
        var recordWindows: [TypeWindow<ConsentCategory>] {
            grants.values.filter { $0.decision == .allowed }.compactMap { g in
                g.type.consentCategory.map {
                    TypeWindow(
                        $0, addedThrough: g.addedThrough, since: g.history.earliestDate(at: now), only: g.type == .clinical(.medication) ? medications : nil)
                }
            }
                .sorted { $0.type < $1.type }
        }

        var sampleWindows: [TypeWindow<QuantityType>] {
            grants.values.filter { $0.decision == .allowed }.compactMap { g in
                g.type.quantityType.map { TypeWindow($0, addedThrough: g.addedThrough, since: g.history.earliestDate(at: now)) }
            }
                .sorted { $0.type < $1.type }
        }

        /// Windows of granted clinical types (one type, or all).
        func records(_ type: ClinicalType?) -> [TypeWindow<ConsentCategory>] {
            recordWindows.filter { w in w.type.clinicalType.map { type == nil || $0 == type } ?? false }
        }
        func samples(_ type: QuantityType?) -> [TypeWindow<QuantityType>] { sampleWindows.filter { type == nil || $0.type == type } }

        func changedAnchor(_ type: HealthDataType) -> QueryAnchor { grants[type]?.changedAnchor ?? .initial }
    }

    func grantsByType() async throws -> [HealthDataType: ReadGrant] {
        let grants: [ReadGrant]
        if let read = readGrants?.take() { grants = read } else { grants = try await store.grants(appID: app.id) }
        return Dictionary(grants.map { ($0.type, $0) }, uniquingKeysWith: { a, _ in a })
    }

    func visibility() async throws -> Visibility {
        let grants = try await grantsByType()
        var v = Visibility(grants: grants, now: store.clock.now)
        if grants[.clinical(.medication)]?.decision == .allowed { v.medications = try await pickedMedicationRecords() }
        return v
    }

    /// The identity keys of the records behind the medications the person picked for the app
    /// (read from the whole list, the person's view: which records make a medication does not
    /// depend on the app); `nil` when no pick was made.
    func pickedMedicationRecords() async throws -> [Data]? {
        guard let picked = try await store.medicationChoice(appID: app.id) else { return nil }
        guard !picked.isEmpty else { return [] }
        return try await store.medicationList().entries.filter { picked.contains($0.id) }.flatMap(\.records).map {
            store.resourceKey(source: $0.source, resourceType: $0.resourceType, identifier: $0.identifier).bytes
        }
    }

    /// The latest change the app may see, counting a grant change as a change of the types
    /// that have visible data.
    func appAnchor(_ v: Visibility) async throws -> QueryAnchor {
        var latest = QueryAnchor.initial
        for w in v.recordWindows {
            let a = try await store.latestAnchor(records: [w], samples: [])
            if a > .initial { latest = max(latest, a, v.changedAnchor(HealthDataType(w.type))) }
        }
        for w in v.sampleWindows {
            let a = try await store.latestAnchor(records: [], samples: [w])
            if a > .initial { latest = max(latest, a, v.changedAnchor(.quantity(w.type))) }
        }
        return latest
    }

    func seesRecords(fromSource source: String, _ v: Visibility) async throws -> Bool {
        guard !v.recordWindows.isEmpty else { return false }
        return try await store.count(RecordQuery(type: nil, predicate: .and([.source(source), .visible(v.recordWindows)]))) > 0
    }

    static func and(_ a: RecordPredicate?, _ b: RecordPredicate) -> RecordPredicate { a.map { .and([$0, b]) } ?? b }

    func audit(_ operation: String, clinical type: ClinicalType?, count: Int) async throws {
        let types = type.map { [HealthDataType.clinical($0)] } ?? app.requestedTypes.filter { $0.clinicalType != nil }.sorted()
        try await audit(operation, types: types, count: count)
    }

    func audit(_ operation: String, quantity type: QuantityType?, count: Int) async throws {
        let types = type.map { [HealthDataType.quantity($0)] } ?? app.requestedTypes.filter { $0.quantityType != nil }.sorted()
        try await audit(operation, types: types, count: count)
    }

    func audit(_ operation: String, types: [HealthDataType], count: Int) async throws {
        try await store.appendAudit(AuditEntry(appID: app.id, date: store.clock.now, operation: operation, types: types, count: count))
    }
}
