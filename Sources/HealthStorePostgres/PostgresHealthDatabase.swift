import Foundation
import HealthStoreCore
import PostgresNIO
import Synchronization

/// One PostgreSQL database that holds the stores of many people: a connection pool that runs
/// for the object's lifetime, and the schema, brought up to date once.
///
/// Make one per database and process and open a ``PostgresHealthStore`` per person on it; the
/// stores share the pool. The pool stops when ``shutdown()`` is called or the object goes away.
public final class PostgresHealthDatabase: Sendable {
    /// Where the database is.
    public let url: PostgresStoreURL
    let client: PostgresClient
    let logger: Logger
    private let runTask: Task<Void, Never>
    private let migrated = Mutex<Task<Void, any Error>?>(nil)
    private let observer = Mutex<(@Sendable (SQLStatement) -> Void)?>(nil)
    /// The group commit of every store's log rows on this database.
    let logWriter = SharedLogWriter()
    /// The one clock of every store's log batches on this database.
    let logTicker: LogFlushTicker
    /// The statement texts that run prepared on the pool's connections.
    let prepared = PreparedStatements()
    /// The dialect of statements that belong to no person: migrations and the schema's bookkeeping.
    static let unscoped = SQLDialect.postgres(person: nil)

    /// Makes a pool for the database at `url`. A command's pool connects at its first use and
    /// closes connections it stops using; a server's (`keepsConnections`) opens all its
    /// connections at once and keeps them (see ``poolOptions(_:keepsConnections:)``).
    public convenience init(url: PostgresStoreURL, keepsConnections: Bool = false) throws(HealthStoreError) {
        try self.init(url: url, keepsConnections: keepsConnections, logDelay: nil)
    }

    /// Makes a pool whose stores' log batches wait `logDelay` (the usual delay if `nil`) before
    /// their background flush: a test that watches a reader's flush alone waits longer.
    package init(url: PostgresStoreURL, keepsConnections: Bool = false, logDelay: Duration?) throws(HealthStoreError) {
        self.url = url
        logTicker = logDelay.map { LogFlushTicker(delay: $0) } ?? LogFlushTicker()
        var logger = Logger(label: "healthrecords.postgres")
        logger.logLevel = .critical
        self.logger = logger
        var config = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: try Self.clientTLS(url))
        config.options = Self.poolOptions(url, keepsConnections: keepsConnections)
        let client = PostgresClient(configuration: config, backgroundLogger: logger)
        self.client = client
        runTask = Task { await client.run() }
    }

    /// The pool's options.
    ///
    /// Each time a connection goes back to postgres-nio's pool, the pool starts a keep-alive timer
    /// (30 s) and, for a connection beyond its minimum, an idle timer (60 s), and cancels both
    /// when the connection is leased again. A cancelled `Task.sleep` stays in the runtime's timer
    /// heap and still fires at its deadline: at 5,000 statements a second that was 10,000 timers
    /// a second, firing as bursts of CPU 30 and 60 s after the load that made them (an idle server
    /// burned 14 % of a core 20–30 s and 50–60 s after a burst), and a busy server's tails of up
    /// to 2 s came when they fired (Benchmarks/people-wrk.sh). So a server's pool keeps all its
    /// connections (no idle timers) and sends no keep-alive queries (no keep-alive timers): a
    /// connection closed under it is replaced as the pool notices, and one that died silently is
    /// found at its next use, as a keep-alive query would have found it.
    static func poolOptions(_ url: PostgresStoreURL, keepsConnections: Bool) -> PostgresClient.Configuration.Options {
        var options = PostgresClient.Configuration.Options()
        options.maximumConnections = url.poolSize
        options.connectTimeout = .seconds(10)
        if keepsConnections {
            options.minimumConnections = url.poolSize
            options.keepAliveBehavior = nil
        }
        return options
    }

    /// Makes a pool for the database a URL names.
    public convenience init(url: String) throws(HealthStoreError) {
        try self.init(url: PostgresStoreURL(url))
    }

    deinit { runTask.cancel() }

    /// Closes every connection; stores on this database fail afterwards.
    public func shutdown() async {
        runTask.cancel()
        await runTask.value
    }

    /// Brings the schema up to date (once per object; again is a no-op) over a connection of its
    /// own, so that an unreachable server or a wrong password fails at once with
    /// ``HealthStoreError/cannotOpen(path:reason:)``.
    ///
    /// Migrations run in one transaction under an advisory lock, so processes starting together
    /// apply each migration once. A database that has a migration this version does not know
    /// fails with ``HealthStoreError/unknownSchema(migration:)``.
    public func migrate() async throws(HealthStoreError) {
        let task = migrated.withLock { current in
            if let current { return current }
            let made = Task { try await self.runMigrations() }
            current = made
            return made
        }
        do { try await task.value } catch {
            migrated.withLock { if $0 == task { $0 = nil } }
            throw error as? HealthStoreError ?? .cannotOpen(path: url.redacted, reason: "\(error)")
        }
    }

    /// The names of the migrations applied to the database, in the order they were applied.
    public func appliedMigrations() async throws(HealthStoreError) -> [String] {
        try await withDirectConnection { session in
            try await session.rows(SQLStatement(Self.unscoped, "SELECT name FROM schema_migrations ORDER BY applied_order")).map { try $0.string(0) }
        }
    }

    private func runMigrations() async throws {
        try await withDirectConnection { session in
            try await session.run("BEGIN")
            do {
                var lock = SQLStatement(Self.unscoped, "SELECT pg_advisory_xact_lock(")
                lock += lock.bind(PostgresSchema.migrationLock) + ")"
                try await session.run(lock)
                try await session.run("""
                    CREATE TABLE IF NOT EXISTS schema_migrations (
                        name text PRIMARY KEY,
                        applied_order integer NOT NULL,
                        applied_date timestamptz NOT NULL DEFAULT now()
                    )
                    """)
                let applied = try await session.rows(SQLStatement(Self.unscoped, "SELECT name FROM schema_migrations ORDER BY applied_order")).map { try $0.string(0) }
                let known = PostgresSchema.migrations.map(\.name)
                if let unknown = applied.first(where: { !known.contains($0) }) {
                    throw HealthStoreError.unknownSchema(migration: unknown)
                }
                for (order, migration) in PostgresSchema.migrations.enumerated() where !applied.contains(migration.name) {
                    for statement in migration.statements { try await session.run(statement) }
                    var record = SQLStatement(Self.unscoped, "INSERT INTO schema_migrations (name, applied_order) VALUES (")
                    record += record.bind(migration.name) + ", " + record.bind(order + 1) + ")"
                    try await session.run(record)
                }
                try await session.run("COMMIT")
            } catch {
                try? await session.run("ROLLBACK")
                throw error
            }
        }
    }

    /// Runs work on a connection made for it (not from the pool), closed afterwards.
    func withDirectConnection<T: Sendable>(_ body: (PGSession) async throws -> T) async throws(HealthStoreError) -> T {
        let connection: PostgresConnection
        do {
            var config = PostgresConnection.Configuration(
                host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: try Self.connectionTLS(url))
            config.options.connectTimeout = .seconds(10)
            connection = try await PostgresConnection.connect(configuration: config, id: 0, logger: logger)
        } catch let e as HealthStoreError {
            throw e
        } catch let e as PSQLError {
            throw .cannotOpen(path: url.redacted, reason: PostgresErrors.describe(e))
        } catch {
            throw .cannotOpen(path: url.redacted, reason: "\(error)")
        }
        do {
            let result = try await body(PGSession(connection: connection, logger: logger))
            try? await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw (PostgresErrors.map(error, location: url.redacted) as? HealthStoreError) ?? .database("\(error)")
        }
    }

    /// Calls `observer` with every statement a store on this database runs from now
    /// on (migrations excepted): how the test that every statement is kept to one person sees them.
    package func observeStatements(_ observer: (@Sendable (SQLStatement) -> Void)?) {
        self.observer.withLock { $0 = observer }
    }

    /// A session on a pooled connection, seen by the statement observer.
    func session(_ connection: PostgresConnection) -> PGSession {
        PGSession(connection: connection, logger: logger, observer: observer.withLock { $0 }, prepared: prepared)
    }

    private static func clientTLS(_ url: PostgresStoreURL) throws(HealthStoreError) -> PostgresClient.Configuration.TLS {
        switch url.tls {
        case .disable: return .disable
        case .require:
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .fullVerification
            return .require(tls)
        }
    }

    private static func connectionTLS(_ url: PostgresStoreURL) throws(HealthStoreError) -> PostgresConnection.Configuration.TLS {
        switch url.tls {
        case .disable: return .disable
        case .require:
            do { return .require(try NIOSSLContext(configuration: .makeClientConfiguration())) } catch {
                throw .cannotOpen(path: url.redacted, reason: "cannot set up TLS: \(error)")
            }
        }
    }
}
