import ClinicalRecords
import FHIR
import Foundation
import GRDB

/// The embedded engine: one SQLite file in WAL mode, through GRDB.
public final class SQLiteHealthStore: HealthStore {
    /// The clock that dates additions and deletions.
    public let clock: HealthClock
    /// The database file.
    public let path: String
    let pool: DatabasePool
    /// Seals sensitive values: plain, AES-GCM, or ``LockedSealer`` for a locked store.
    let sealer: any RecordSealer
    let broadcaster = ChangeBroadcaster()

    /// Opens (creating when missing) the store at `path` with a given sealer.
    ///
    /// An encrypted store opened this way (without its key) is locked: every operation fails
    /// with ``HealthStoreError/storeLocked(path:)``. Use ``init(path:clock:credentials:kdf:busyTimeout:)``
    /// to unlock one.
    ///
    /// - Parameters:
    ///   - busyTimeout: how long a write waits for another process's write before failing with
    ///     ``HealthStoreError/storeBusy(path:)``.
    public convenience init(path: String, clock: HealthClock = .system, sealer: any RecordSealer = PlainSealer(), busyTimeout: TimeInterval = 10) throws(HealthStoreError) {
        let pool = try Self.openPool(path: path, busyTimeout: busyTimeout)
        let envelope = try Self.envelope(pool, path: path)
        let chosen: any RecordSealer = envelope == nil ? sealer : LockedSealer(path: path)
        try Self.classifyPending(pool, sealer: chosen, path: path)
        self.init(path: path, clock: clock, pool: pool, sealer: chosen)
    }

    /// Opens (creating when missing) the store at `path`, encrypted when credentials are given.
    ///
    /// - An encrypted store is unlocked with the credentials; without them it is locked (every
    ///   operation fails with ``HealthStoreError/storeLocked(path:)``).
    /// - A new (empty) store opened with credentials is encrypted from its first row: a new
    ///   data key is made and wrapped for them (scrypt with `kdf` for a passphrase).
    /// - A plain store that holds data, opened with credentials, fails with
    ///   ``HealthStoreError/notEncrypted(path:)``: convert it with ``encrypt(path:credentials:kdf:clock:)``.
    ///
    /// - Throws: ``HealthStoreError/wrongPassphrase(path:)`` when the credentials do not unwrap the key.
    public convenience init(
        path: String, clock: HealthClock = .system, credentials: StoreCredentials?, kdf: KDFParameters = .standard, busyTimeout: TimeInterval = 10
    ) throws(HealthStoreError) {
        let pool = try Self.openPool(path: path, busyTimeout: busyTimeout)
        let sealer: any RecordSealer
        if let envelope = try Self.envelope(pool, path: path) {
            if let credentials {
                sealer = AESGCMSealer(dataKey: try envelope.unwrap(credentials, path: path))
            } else {
                sealer = LockedSealer(path: path)
            }
        } else if let credentials {
            let (envelope, dataKey) = try KeyEnvelope.create(for: credentials, kdf: kdf, date: clock.now)
            try Self.guarded(path) {
                try pool.write { db in
                    guard try SQLiteKeyStorage.isEmpty(db) else { throw HealthStoreError.notEncrypted(path: path) }
                    try SQLiteKeyStorage.save(envelope, db)
                }
            }
            sealer = AESGCMSealer(dataKey: dataKey)
        } else {
            sealer = PlainSealer()
        }
        try Self.classifyPending(pool, sealer: sealer, path: path)
        self.init(path: path, clock: clock, pool: pool, sealer: sealer)
    }

    init(path: String, clock: HealthClock, pool: DatabasePool, sealer: any RecordSealer) {
        self.path = path
        self.clock = clock
        self.pool = pool
        self.sealer = sealer
    }

    /// Gives rows the `v7` migration could not place (non-clinical Observations, whose category
    /// is inside sealed bytes) their consent category, once the store's key is at hand. Until
    /// then no grant matches them.
    static func classifyPending(_ pool: DatabasePool, sealer: any RecordSealer, path: String) throws(HealthStoreError) {
        guard !(sealer is LockedSealer) else { return }
        try guarded(path) {
            let pending = try pool.read { db in
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM resource WHERE category = ?)", arguments: [CategoryCoding.pending]) ?? false
            }
            guard pending else { return }
            try pool.write { db in
                let rows = try Row.fetchAll(
                    db, sql: "SELECT id, resource_type, resource_id, fhir_version, data FROM resource WHERE category = ?", arguments: [CategoryCoding.pending])
                for row in rows {
                    let version = (try? FHIRVersion(versionString: row[3] as String)) ?? FHIRVersion.primary(for: .r4)
                    // A row that cannot be opened is `other` rather than a store that cannot open.
                    var category = ConsentCategory.context(.other)
                    if let id = try? SQLiteRowDecoder.text(row[2], sealer), let data = try? sealer.open(row[4]) {
                        category = CategoryCoding.classify(resourceType: row[1], identifier: id, fhirVersion: version, data: data)
                    }
                    try db.execute(sql: "UPDATE resource SET category = ? WHERE id = ?", arguments: [category.rawValue, row[0] as Int64])
                }
            }
        }
    }

    /// Whether the store is encrypted and was opened without its key.
    public var isLocked: Bool { sealer is LockedSealer }

    /// Opens the database and brings its schema up to date.
    static func openPool(path: String, busyTimeout: TimeInterval) throws(HealthStoreError) -> DatabasePool {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try OwnerOnlyFiles.makeDirectory(directory) }
        if path != ":memory:" { try OwnerOnlyFiles.prepareDatabase(path) }
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        config.prepareDatabase { db in
            // Deleted rows must not linger in free pages: delete is meant to remove data.
            try db.execute(sql: "PRAGMA secure_delete = ON")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let pool: DatabasePool
        do {
            // A new (empty) file is switched to WAL by whoever opens it first; processes opening
            // it at the same moment take turns, as they do for the migrations.
            if path != ":memory:", (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0 {
                pool = try MigrationLock.withLock(storePath: path, timeout: busyTimeout) { try DatabasePool(path: path, configuration: config) }
            } else {
                pool = try DatabasePool(path: path, configuration: config)
            }
        } catch let e as HealthStoreError {
            throw e
        } catch {
            throw .cannotOpen(path: path, reason: SQLiteHealthStore.describe(error))
        }
        let migrator = SQLiteSchema.migrator
        try guarded(path) {
            if try pool.read({ try migrator.hasBeenSuperseded($0) }) {
                throw HealthStoreError.unknownSchema(migration: "newer than \(SQLiteSchema.latestMigration)")
            }
            if try pool.read({ try migrator.hasCompletedMigrations($0) }) { return }
            // Two processes opening a new store at once must not both run the migrations.
            try MigrationLock.withLock(storePath: path, timeout: busyTimeout) { try migrator.migrate(pool) }
        }
        return pool
    }

    static func envelope(_ pool: DatabasePool, path: String) throws(HealthStoreError) -> KeyEnvelope? {
        try guarded(path) { try pool.read { try SQLiteKeyStorage.load($0) } }
    }

    /// Runs database work, turning its errors into ``HealthStoreError``s.
    static func guarded<T>(_ path: String, _ body: () throws -> T) throws(HealthStoreError) -> T {
        do { return try body() } catch let e as HealthStoreError {
            throw e
        } catch {
            throw (SQLiteHealthStore.map(error, path: path) as? HealthStoreError) ?? .cannotOpen(path: path, reason: "\(error)")
        }
    }

    // MARK: Sources

    public func sources() async throws -> [RecordSource] {
        let sealer = self.sealer
        return try await read { db in
            try Row.fetchAll(db, sql: "SELECT identifier, name FROM source").map {
                RecordSource(identifier: try SQLiteRowDecoder.text($0[0], sealer), name: try SQLiteRowDecoder.text($0[1], sealer))
            }.sorted { $0.identifier < $1.identifier }
        }
    }

    // MARK: Import

    public func importResources(source: RecordSource, from producer: some ResourceProducer) async throws -> ImportOutcome {
        let now = clock.now.timeIntervalSince1970
        let sealer = self.sealer
        let result = try await write { db -> (ImportOutcome, Set<ClinicalType>, Int64) in
            var writer = try SQLiteRecordWriter(db: db, sealer: sealer)
            let sourceID = try writer.sourceID(for: source)
            var outcome = ImportOutcome()
            var types = Set<ClinicalType>()
            while let item = try producer.next() {
                let change = try writer.upsert(item, sourceID: sourceID, sourceIdentifier: source.identifier, now: now)
                guard let type = item.clinicalType else {
                    outcome.notRecords += 1
                    continue
                }
                switch change {
                case .inserted: outcome.inserted += 1; types.insert(type)
                case .updated(let previous): outcome.updated += 1; types.insert(type); previous.map { _ = types.insert($0) }
                case .unchanged: outcome.unchanged += 1
                }
            }
            try writer.finish()
            return (outcome, types, writer.anchor)
        }
        if !result.1.isEmpty { broadcaster.publish(StoreChange(types: result.1, anchor: QueryAnchor(rawValue: result.2))) }
        return result.0
    }

    // MARK: Queries

    public func records(_ query: RecordQuery) async throws -> [ClinicalRecord] {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        let sql = try SQLiteQueryBuilder(sealer: sealer).select(query)
        let sealer = self.sealer
        return try await read { db in
            try Row.fetchAll(db, sql: sql.text, arguments: sql.arguments).compactMap { try SQLiteRowDecoder.stored($0, sealer: sealer).clinicalRecord }
        }
    }

    public func count(_ query: RecordQuery) async throws -> Int {
        let sql = try SQLiteQueryBuilder(sealer: sealer).count(query)
        return try await read { db in try Int.fetchOne(db, sql: sql.text, arguments: sql.arguments) ?? 0 }
    }

    public func resource(_ identity: RecordIdentity, visible windows: [TypeWindow<ConsentCategory>]?) async throws -> StoredResource? {
        let key = sealer.identityKey([identity.source, identity.resourceType.rawValue, identity.identifier])
        let sealer = self.sealer
        var sql = SQLiteRowDecoder.selectColumns + " WHERE r.identity = ?"
        var args: StatementArguments = [key]
        if let windows { SQLiteQueryBuilder.visibility(windows, type: "r.category", added: "r.added_anchor", into: &sql, &args) }
        let finalSQL = sql
        let finalArgs = args
        return try await read { db in
            try Row.fetchOne(db, sql: finalSQL, arguments: finalArgs).map { try SQLiteRowDecoder.stored($0, sealer: sealer) }
        }
    }

    public func contextResources(ofType type: FHIRResourceType, source: String?, visible windows: [TypeWindow<ConsentCategory>]?) async throws
        -> [StoredResource]
    {
        let sealer = self.sealer
        var sql = SQLiteRowDecoder.selectColumns + " WHERE r.clinical_type IS NULL AND r.resource_type = ?"
        var args: StatementArguments = [type.rawValue]
        if let source {
            sql += " AND s.identity = ?"
            args += [SQLiteSchema.sourceIdentity(source, sealer)]
        }
        if let windows { SQLiteQueryBuilder.visibility(windows, type: "r.category", added: "r.added_anchor", into: &sql, &args) }
        sql += " ORDER BY r.id"
        let finalSQL = sql
        let finalArgs = args
        return try await read { db in
            try Row.fetchAll(db, sql: finalSQL, arguments: finalArgs).map { try SQLiteRowDecoder.stored($0, sealer: sealer) }
        }
    }

    public func changes(_ query: AnchoredQuery) async throws -> AnchoredQueryResult {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        let builder = SQLiteQueryBuilder(sealer: sealer)
        let added = try builder.added(query)
        let deleted = try builder.deleted(query)
        let sealer = self.sealer
        return try await read { db in
            let current = try Int64.fetchOne(db, sql: "SELECT value FROM anchor_counter") ?? 0
            let stored = try Row.fetchAll(db, sql: added.text, arguments: added.arguments).map { try SQLiteRowDecoder.stored($0, sealer: sealer) }
            let gone = try Row.fetchAll(db, sql: deleted.text, arguments: deleted.arguments).map { try SQLiteRowDecoder.deleted($0, sealer: sealer) }
            return AnchoredQueryMerge.merge(added: stored, deleted: gone, limit: query.limit, current: QueryAnchor(rawValue: current))
        }
    }

    public func currentAnchor() async throws -> QueryAnchor {
        try await read { db in QueryAnchor(rawValue: try Int64.fetchOne(db, sql: "SELECT value FROM anchor_counter") ?? 0) }
    }

    public func changeSummary(since anchor: QueryAnchor) async throws -> StoreChange {
        try await read { db in
            let current = try Int64.fetchOne(db, sql: "SELECT value FROM anchor_counter") ?? 0
            let names = try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT clinical_type FROM resource WHERE anchor > ? AND clinical_type IS NOT NULL
                    UNION SELECT DISTINCT clinical_type FROM tombstone WHERE anchor > ?
                    """, arguments: [anchor.rawValue, anchor.rawValue])
            let sampleNames = try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT quantity_type FROM quantity_sample WHERE anchor > ?
                    UNION SELECT DISTINCT quantity_type FROM quantity_sample_tombstone WHERE anchor > ?
                    """, arguments: [anchor.rawValue, anchor.rawValue])
            return StoreChange(
                types: Set(names.compactMap(ClinicalType.init(rawValue:))),
                sampleTypes: Set(sampleNames.compactMap(QuantityType.init(rawValue:))),
                anchor: QueryAnchor(rawValue: current))
        }
    }

    // MARK: Delete

    public func delete(source: String, resourceType: FHIRResourceType?, identifier: String?) async throws -> Int {
        let now = clock.now.timeIntervalSince1970
        let sealer = self.sealer
        let result = try await write { db -> (Int, Set<ClinicalType>, Int64) in
            var writer = try SQLiteRecordWriter(db: db, sealer: sealer)
            let (count, types) = try writer.delete(source: source, resourceType: resourceType, identifier: identifier, now: now)
            try writer.finish()
            return (count, types, writer.anchor)
        }
        if !result.1.isEmpty { broadcaster.publish(StoreChange(types: result.1, anchor: QueryAnchor(rawValue: result.2))) }
        if result.0 > 0 { await truncateWAL() }
        return result.0
    }

    public func localChanges() -> AsyncStream<StoreChange> { broadcaster.subscribe() }

    // MARK: Plumbing

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if isLocked { throw HealthStoreError.storeLocked(path: path) }
        do { return try await pool.read(body) } catch { throw SQLiteHealthStore.map(error, path: path) }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        if isLocked { throw HealthStoreError.storeLocked(path: path) }
        do { return try await pool.write(body) } catch { throw SQLiteHealthStore.map(error, path: path) }
    }

    /// Moves every WAL frame into the database and empties the WAL file, so that old page
    /// images (deleted rows included) do not linger there. Best effort: skipped when readers
    /// hold old snapshots.
    func truncateWAL() async {
        _ = try? await pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
    }

    /// Database errors become ``HealthStoreError``s; anything else (a producer's error) passes through.
    static func map(_ error: any Error, path: String) -> any Error {
        guard let db = error as? DatabaseError else { return error }
        if db.resultCode == .SQLITE_BUSY || db.resultCode == .SQLITE_LOCKED { return HealthStoreError.storeBusy(path: path) }
        return HealthStoreError.database(describe(db))
    }

    static func describe(_ error: any Error) -> String {
        if let db = error as? DatabaseError { return db.message ?? "\(db.resultCode)" }
        return "\(error)"
    }
}
