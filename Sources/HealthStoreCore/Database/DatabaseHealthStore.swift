import ClinicalRecords
import FHIR
import Foundation

/// A health store kept in a SQL database: the store's semantics — import counting, anchors
/// and tombstones, queries and consent visibility, sealing — written once over a
/// ``StoreDatabase`` that an engine provides (SQLite for a file, PostgreSQL for many people).
///
/// Open one with an engine's initializer (`SQLiteHealthStore(path:)`,
/// `PostgresHealthStore(database:person:)`); both name this type.
public final class DatabaseHealthStore: HealthStore, KeyedStore {
    /// The clock that dates additions and deletions.
    public let clock: HealthClock
    /// Where the store is, for messages: a file path, or a redacted URL with the person.
    public let location: String
    package let database: any StoreDatabase
    package let sealer: any RecordSealer
    let broadcaster = ChangeBroadcaster()
    /// Audit entries on their way to the store, written in batches.
    let audits = BatchQueue<AuditEntry>()
    /// Accesses to hosted links on their way to the store, written in batches.
    let linkAccesses = BatchQueue<LinkAccess>()
    /// Pages of resources read at the current anchor (FHIR searches repeat).
    let pageCache = ResourcePageCache()
    /// Rows that never change once written, decoded once (never shared with another store object).
    let remembered = RememberedRows()
    /// Counts statements while a test asks it to.
    package let statements = StatementCounter()

    /// The person whose store this is, on a database shared by many people; `nil` for a file.
    public var person: String? { database.dialect.person }

    /// A store over an opened database with a chosen sealer; engines open through
    /// ``init(opening:clock:sealer:)`` or ``init(opening:clock:credentials:kdf:)``.
    package init(database: any StoreDatabase, clock: HealthClock, sealer: any RecordSealer) {
        self.database = database
        self.location = database.location
        self.clock = clock
        self.sealer = sealer
    }

    /// Opens a store with a given sealer; an encrypted store opened this way is locked.
    package convenience init(opening database: any StoreDatabase, clock: HealthClock, sealer: any RecordSealer) async throws(HealthStoreError) {
        let envelope = try await Self.envelope(database)
        self.init(database: database, clock: clock, sealer: envelope == nil ? sealer : LockedSealer(path: database.location))
        try await classifyPending()
    }

    /// Opens a store, encrypted when credentials are given.
    ///
    /// - An encrypted store is unlocked with the credentials; without them it is locked (every
    ///   operation fails with ``HealthStoreError/storeLocked(path:)``).
    /// - A new (empty) store opened with credentials is encrypted from its first row.
    /// - A plain store that holds data, opened with credentials, fails with
    ///   ``HealthStoreError/notEncrypted(path:)``.
    package convenience init(
        opening database: any StoreDatabase, clock: HealthClock, credentials: StoreCredentials?, kdf: KDFParameters
    ) async throws(HealthStoreError) {
        let location = database.location
        let sealer: any RecordSealer
        if let envelope = try await Self.envelope(database) {
            if let credentials {
                sealer = AESGCMSealer(dataKey: try envelope.unwrap(credentials, path: location))
            } else {
                sealer = LockedSealer(path: location)
            }
        } else if let credentials {
            let (envelope, dataKey) = try KeyEnvelope.create(for: credentials, kdf: kdf, date: clock.now)
            let plain = DatabaseHealthStore(database: database, clock: clock, sealer: PlainSealer())
            do {
                try await plain.write { w in
                    guard try await StoreKeyRow.isEmpty(w) else { throw HealthStoreError.notEncrypted(path: location) }
                    try await StoreKeyRow.save(envelope, w)
                }
            } catch {
                throw error as? HealthStoreError ?? .database("\(error)")
            }
            sealer = AESGCMSealer(dataKey: dataKey)
        } else {
            sealer = PlainSealer()
        }
        self.init(database: database, clock: clock, sealer: sealer)
        try await classifyPending()
    }

    static func envelope(_ database: any StoreDatabase) async throws(HealthStoreError) -> KeyEnvelope? {
        do {
            return try await database.read { session in try await StoreKeyRow.load(session, database.dialect) }
        } catch {
            throw database.mapError(error) as? HealthStoreError ?? .cannotOpen(path: database.location, reason: "\(error)")
        }
    }

    /// Whether the store is encrypted and was opened without its key.
    public var isLocked: Bool { sealer is LockedSealer }

    /// Whether the store seals what it keeps with a key (an encrypted store, locked or not).
    public var isEncrypted: Bool { !(sealer is PlainSealer) }

    // MARK: Plumbing

    var dialect: SQLDialect { database.dialect }

    /// A statement in this store's dialect.
    func sql(_ text: String = "") -> SQLStatement { SQLStatement(dialect, text) }

    /// Runs reads; refuses a locked store before touching the database.
    func read<T: Sendable>(_ body: (any SQLSession) async throws -> T) async throws -> T {
        if isLocked { throw HealthStoreError.storeLocked(path: location) }
        let statements = self.statements
        return try await guarded { try await database.read { session in try await body(statements.counted(session)) } }
    }

    /// Runs reads that must agree with each other in one snapshot.
    func snapshot<T: Sendable>(_ body: (any SQLSession) async throws -> T) async throws -> T {
        if isLocked { throw HealthStoreError.storeLocked(path: location) }
        let statements = self.statements
        return try await guarded { try await database.snapshot { session in try await body(statements.counted(session)) } }
    }

    /// Runs a write in one transaction holding the store's lock; the writer numbers changes
    /// with the store's next anchors. A throw rolls everything back.
    func write<T: Sendable>(_ body: (StoreWriter) async throws -> T) async throws -> T {
        if isLocked { throw HealthStoreError.storeLocked(path: location) }
        let dialect = self.dialect
        let sealer = self.sealer
        let location = self.location
        let statements = self.statements
        return try await guarded {
            try await database.transaction { raw in
                let session = statements.counted(raw)
                let counter = dialect.anchorCounter
                var lock = SQLStatement(dialect, "SELECT \(counter.column) FROM \(counter.table) WHERE ")
                lock += lock.singleton + dialect.lockClause
                guard let row = try await session.row(lock) else { throw HealthStoreError.database("the anchor counter is missing from \(location)") }
                let writer = StoreWriter(session: session, dialect: dialect, sealer: sealer, anchor: try row.int(0))
                let result = try await body(writer)
                try await writer.finish()
                return result
            }
        }
    }

    /// Runs database work, turning engine errors into ``HealthStoreError``s.
    func guarded<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw database.mapError(error) }
    }

    /// Tells observers in this process what a write changed.
    func publish(_ change: StoreChange) {
        if !change.types.isEmpty || !change.sampleTypes.isEmpty { broadcaster.publish(change) }
    }

    static func currentAnchor(_ session: any SQLSession, _ dialect: SQLDialect) async throws -> Int64 {
        let counter = dialect.anchorCounter
        var q = SQLStatement(dialect, "SELECT \(counter.column) FROM \(counter.table) WHERE ")
        q += q.singleton
        return try await session.row(q)?.int(0) ?? 0
    }

    public func localChanges() -> AsyncStream<StoreChange> { broadcaster.subscribe() }
}
