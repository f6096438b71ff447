import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import PostgresNIO

/// The server engine: one person's store inside a PostgreSQL database that many people
/// share, through postgres-nio.
///
/// It answers exactly as ``SQLiteHealthStore`` does — same results, order, anchors, tombstones
/// and errors — and keeps every row under the person's id. Each person has one anchor counter
/// (the `person` row): every write locks that row first (`SELECT … FOR UPDATE`), so one person's
/// writes run one at a time, anchors are gap-free, and two importers never interleave; a write
/// that waits longer than the lock timeout fails with ``HealthStoreError/storeBusy(path:)``.
/// Reads that combine several queries run in one repeatable-read snapshot.
///
/// Encryption at rest works as on SQLite: sealed columns are `bytea` written through the
/// store's ``RecordSealer``, identity keys are HMACs, and a person's wrapped data key is their
/// `store_key` row.
public final class PostgresHealthStore: HealthStore, KeyedStore {
    /// The clock that dates additions and deletions.
    public let clock: HealthClock
    /// The database (and connection pool) the store lives in.
    public let database: PostgresHealthDatabase
    /// The person whose store this is.
    public let person: String
    /// The redacted URL and person, for messages: `postgres://user@host:port/db?person=ID`.
    public let location: String
    let sealer: any RecordSealer
    let lockTimeout: Duration
    let broadcaster = ChangeBroadcaster()

    /// Opens a person's store in a database with a given sealer, creating the person when new.
    ///
    /// An encrypted store opened this way (without its key) is locked: every operation fails
    /// with ``HealthStoreError/storeLocked(path:)``.
    ///
    /// - Parameters:
    ///   - lockTimeout: how long a write waits for another writer of the same person before
    ///     failing with ``HealthStoreError/storeBusy(path:)``.
    public convenience init(
        database: PostgresHealthDatabase, person: String, clock: HealthClock = .system, sealer: any RecordSealer = PlainSealer(),
        lockTimeout: Duration = .seconds(10)
    ) async throws(HealthStoreError) {
        let location = try await Self.prepare(database, person: person)
        let envelope = try await Self.envelope(database, person: person, location: location)
        self.init(database: database, person: person, location: location, clock: clock, sealer: envelope == nil ? sealer : LockedSealer(path: location), lockTimeout: lockTimeout)
        try await classifyPending()
    }

    /// Opens a person's store in a database, encrypted when credentials are given — as
    /// ``SQLiteHealthStore/init(path:clock:credentials:kdf:busyTimeout:)`` does for a file.
    ///
    /// - A new (empty) store opened with credentials is encrypted from its first row.
    /// - A plain store that holds data, opened with credentials, fails with
    ///   ``HealthStoreError/notEncrypted(path:)``.
    ///
    /// - Throws: ``HealthStoreError/wrongPassphrase(path:)`` when the credentials do not unwrap the key.
    public convenience init(
        database: PostgresHealthDatabase, person: String, clock: HealthClock = .system, credentials: StoreCredentials?,
        kdf: KDFParameters = .standard, lockTimeout: Duration = .seconds(10)
    ) async throws(HealthStoreError) {
        let location = try await Self.prepare(database, person: person)
        let sealer: any RecordSealer
        if let envelope = try await Self.envelope(database, person: person, location: location) {
            if let credentials {
                sealer = AESGCMSealer(dataKey: try envelope.unwrap(credentials, path: location))
            } else {
                sealer = LockedSealer(path: location)
            }
        } else if let credentials {
            let (envelope, dataKey) = try KeyEnvelope.create(for: credentials, kdf: kdf, date: clock.now)
            let plain = PostgresHealthStore(database: database, person: person, location: location, clock: clock, sealer: PlainSealer(), lockTimeout: lockTimeout)
            do {
                try await plain.write { w in
                    guard try await PostgresKeyStorage.isEmpty(w.session, person: person) else { throw HealthStoreError.notEncrypted(path: location) }
                    try await PostgresKeyStorage.save(envelope, person: person, w.session)
                }
            } catch {
                throw error as? HealthStoreError ?? .database("\(error)")
            }
            sealer = AESGCMSealer(dataKey: dataKey)
        } else {
            sealer = PlainSealer()
        }
        self.init(database: database, person: person, location: location, clock: clock, sealer: sealer, lockTimeout: lockTimeout)
        try await classifyPending()
    }

    /// Opens the store a URL names (`postgres://…?person=ID`, or `person` given here), with a
    /// connection pool of its own.
    public convenience init(
        url: String, person: String? = nil, clock: HealthClock = .system, credentials: StoreCredentials?, kdf: KDFParameters = .standard,
        lockTimeout: Duration = .seconds(10)
    ) async throws(HealthStoreError) {
        let parsed = try PostgresStoreURL(url)
        guard let who = person ?? parsed.person else {
            throw .invalidArgument("name the person whose store it is: ?person=ID in the PostgreSQL URL")
        }
        try await self.init(
            database: PostgresHealthDatabase(url: parsed), person: who, clock: clock, credentials: credentials, kdf: kdf, lockTimeout: lockTimeout)
    }

    init(database: PostgresHealthDatabase, person: String, location: String, clock: HealthClock, sealer: any RecordSealer, lockTimeout: Duration) {
        self.database = database
        self.person = person
        self.location = location
        self.clock = clock
        self.sealer = sealer
        self.lockTimeout = lockTimeout
    }

    /// Whether the store is encrypted and was opened without its key.
    public var isLocked: Bool { sealer is LockedSealer }

    /// Migrates the database and makes sure the person exists; returns the store's location.
    static func prepare(_ database: PostgresHealthDatabase, person: String) async throws(HealthStoreError) -> String {
        let person = try PostgresStoreURL.checkedPerson(person)
        let location = "\(database.url.redacted)?person=\(person.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? person)"
        try await database.migrate()
        var q = PGQuery("INSERT INTO person (person_id, anchor, created_date) VALUES (")
        q += q.bind(person) + ", 0, " + q.bind(Date().timeIntervalSince1970) + ") ON CONFLICT (person_id) DO NOTHING"
        let insert = q
        try await pooled(database, location: location) { session in try await session.run(insert) }
        return location
    }

    static func envelope(_ database: PostgresHealthDatabase, person: String, location: String) async throws(HealthStoreError) -> KeyEnvelope? {
        try await pooled(database, location: location) { session in try await PostgresKeyStorage.load(person: person, session) }
    }

    /// Runs work on a pooled connection while opening a store (the schema is in place by then).
    static func pooled<T: Sendable>(
        _ database: PostgresHealthDatabase, location: String, _ body: (PGSession) async throws -> T
    ) async throws(HealthStoreError) -> T {
        do {
            return try await database.client.withConnection { try await body(PGSession(connection: $0, logger: database.logger)) }
        } catch {
            throw PostgresErrors.map(error, location: location) as? HealthStoreError ?? .cannotOpen(path: location, reason: "\(error)")
        }
    }

    // MARK: Plumbing

    /// Runs work on a pooled connection; refuses a locked store before touching the database.
    func read<T: Sendable>(_ body: (PGSession) async throws -> T) async throws -> T {
        if isLocked { throw HealthStoreError.storeLocked(path: location) }
        return try await guarded { try await self.database.client.withConnection { try await body(PGSession(connection: $0, logger: self.database.logger)) } }
    }

    /// Runs several reads in one repeatable-read snapshot, so they agree with each other.
    func snapshot<T: Sendable>(_ body: (PGSession) async throws -> T) async throws -> T {
        try await read { session in
            try await session.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            do {
                let result = try await body(session)
                try await session.run("COMMIT")
                return result
            } catch {
                try? await session.run("ROLLBACK")
                throw error
            }
        }
    }

    /// Runs a write in one transaction holding the person's lock; the writer numbers changes
    /// with the person's next anchors. A throw rolls everything back.
    func write<T: Sendable>(_ body: (PostgresWriter) async throws -> T) async throws -> T {
        try await read { session in
            try await session.run("BEGIN")
            do {
                let ms = lockTimeout.components.seconds * 1000 + lockTimeout.components.attoseconds / 1_000_000_000_000_000
                try await session.run("SET LOCAL lock_timeout = \(max(ms, 1))")
                var lock = PGQuery("SELECT anchor FROM person WHERE person_id = ")
                lock += lock.bind(person) + " FOR UPDATE"
                guard let row = try await session.row(lock) else { throw HealthStoreError.database("person \(person) is missing from \(database.url.redacted)") }
                let writer = PostgresWriter(session: session, person: person, sealer: sealer, anchor: try row.int(0))
                let result = try await body(writer)
                try await writer.finish()
                try await session.run("COMMIT")
                return result
            } catch {
                try? await session.run("ROLLBACK")
                throw error
            }
        }
    }

    /// Runs database work, turning client errors into ``HealthStoreError``s.
    func guarded<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw PostgresErrors.map(error, location: location) }
    }

    /// A query with the person bound as `$1`.
    func query(_ head: String) -> PGQuery {
        var q = PGQuery()
        _ = q.bind(person)
        q += head
        return q
    }

    static func currentAnchor(_ session: PGSession, person: String) async throws -> Int64 {
        var q = PGQuery("SELECT anchor FROM person WHERE person_id = ")
        q += q.bind(person)
        return try await session.row(q)?.int(0) ?? 0
    }

    // MARK: Sources

    public func sources() async throws -> [RecordSource] {
        let sealer = self.sealer
        let q = query("SELECT identifier, name FROM source WHERE person_id = $1")
        return try await read { session in
            try await session.rows(q).map { RecordSource(identifier: try $0.opened(0, sealer), name: try $0.opened(1, sealer)) }
        }.sorted { $0.identifier < $1.identifier }
    }

    // MARK: Queries

    public func records(_ query: RecordQuery) async throws -> [ClinicalRecord] {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        let q = PostgresQueryBuilder(person: person, sealer: sealer).select(query)
        let sealer = self.sealer
        return try await read { session in
            try await session.rows(q).compactMap { try PostgresRowDecoder.stored($0, sealer: sealer).clinicalRecord }
        }
    }

    public func count(_ query: RecordQuery) async throws -> Int {
        let q = PostgresQueryBuilder(person: person, sealer: sealer).count(query)
        return try await read { session in Int(try await session.row(q)?.int(0) ?? 0) }
    }

    public func resource(_ identity: RecordIdentity, visible windows: [TypeWindow<ConsentCategory>]?) async throws -> StoredResource? {
        var q = query(PostgresRowDecoder.selectColumns + " WHERE r.person_id = $1 AND r.identity = ")
        q += q.bind(sealer.identityKey([identity.source, identity.resourceType.rawValue, identity.identifier]))
        if let windows { PostgresQueryBuilder.visibility(windows, type: "r.category", added: "r.id", into: &q) }
        let sealer = self.sealer
        let final = q
        return try await read { session in try await session.row(final).map { try PostgresRowDecoder.stored($0, sealer: sealer) } }
    }

    public func contextResources(ofType type: FHIRResourceType, source: String?, visible windows: [TypeWindow<ConsentCategory>]?) async throws
        -> [StoredResource]
    {
        var q = query(PostgresRowDecoder.selectColumns + " WHERE r.person_id = $1 AND r.clinical_type IS NULL AND r.resource_type = ")
        q += q.bind(type.rawValue)
        if let source { q += " AND s.identity = " + q.bind(ConsentCoding.sourceIdentity(source, sealer)) }
        if let windows { PostgresQueryBuilder.visibility(windows, type: "r.category", added: "r.id", into: &q) }
        q += " ORDER BY r.id"
        let sealer = self.sealer
        let final = q
        return try await read { session in try await session.rows(final).map { try PostgresRowDecoder.stored($0, sealer: sealer) } }
    }

    public func changes(_ query: AnchoredQuery) async throws -> AnchoredQueryResult {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        let builder = PostgresQueryBuilder(person: person, sealer: sealer)
        let added = builder.added(query)
        let deleted = builder.deleted(query)
        let sealer = self.sealer
        let person = self.person
        return try await snapshot { session in
            let current = try await Self.currentAnchor(session, person: person)
            let stored = try await session.rows(added).map { try PostgresRowDecoder.stored($0, sealer: sealer) }
            let gone = try await session.rows(deleted).map { try PostgresRowDecoder.deleted($0, sealer: sealer) }
            return AnchoredQueryMerge.merge(added: stored, deleted: gone, limit: query.limit, current: QueryAnchor(rawValue: current))
        }
    }

    public func currentAnchor() async throws -> QueryAnchor {
        let person = self.person
        return try await read { session in QueryAnchor(rawValue: try await Self.currentAnchor(session, person: person)) }
    }

    public func changeSummary(since anchor: QueryAnchor) async throws -> StoreChange {
        var q = query("""
            SELECT 'c', clinical_type FROM resource WHERE person_id = $1 AND anchor > $2 AND clinical_type IS NOT NULL
            UNION SELECT 'c', clinical_type FROM tombstone WHERE person_id = $1 AND anchor > $2
            UNION SELECT 'q', quantity_type FROM quantity_sample WHERE person_id = $1 AND anchor > $2
            UNION SELECT 'q', quantity_type FROM quantity_sample_tombstone WHERE person_id = $1 AND anchor > $2
            """)
        _ = q.bind(anchor.rawValue)
        let person = self.person
        let final = q
        return try await snapshot { session in
            let current = try await Self.currentAnchor(session, person: person)
            var types = Set<ClinicalType>()
            var sampleTypes = Set<QuantityType>()
            for row in try await session.rows(final) {
                let name = try row.string(1)
                if try row.string(0) == "c" { ClinicalType(rawValue: name).map { _ = types.insert($0) } } else { QuantityType(rawValue: name).map { _ = sampleTypes.insert($0) } }
            }
            return StoreChange(types: types, sampleTypes: sampleTypes, anchor: QueryAnchor(rawValue: current))
        }
    }

    public func localChanges() -> AsyncStream<StoreChange> { broadcaster.subscribe() }
}
