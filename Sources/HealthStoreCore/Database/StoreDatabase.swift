import Foundation

/// Runs statements for the store: what an engine provides besides its dialect and schema.
/// A session is one connection, used by one task at a time.
package protocol SQLSession {
    /// Runs a statement and collects its rows.
    func rows(_ statement: SQLStatement) async throws -> [SQLRow]
    /// Runs a statement, ignoring any rows.
    func run(_ statement: SQLStatement) async throws
    /// Runs a statement once for each row of values (its placeholders after the person's),
    /// ignoring any rows: an engine prepares it once and binds each row in turn.
    func runEach(_ statement: SQLStatement, _ rows: [[SQLValue]]) async throws
    /// Runs a statement for `count` rows (its placeholders after the person's), ignoring any
    /// rows: `row(i, &binding)` binds row `i`'s values in order and calls ``SQLRowBinding/run()``
    /// while what they point to is alive. An engine that can binds text and blobs in place.
    func runEach(_ statement: SQLStatement, count: Int, row: (Int, inout any SQLRowBinding) throws -> Void) async throws
}

extension StoreDatabase {
    /// A store alone on its database schedules its own log batches.
    package var logTicker: LogFlushTicker? { nil }

    package func logWrite(_ statements: [SQLStatement]) async throws {
        try await transaction { session in for q in statements { try await session.run(q) } }
    }

    package func logWrite(_ rows: LogInsert) async throws {
        try await logWrite(rows.statements())
    }

    /// Engines whose commits are durable already (PostgreSQL) need nothing more.
    package func durableTransaction<T: Sendable>(_ body: (any SQLSession) async throws -> T) async throws -> T {
        try await transaction(body)
    }
}

extension SQLSession {
    package func runEach(_ statement: SQLStatement, _ rows: [[SQLValue]]) async throws {
        for row in rows { try await run(statement.replacingValues(with: row)) }
    }

    package func runEach(_ statement: SQLStatement, count: Int, row: (Int, inout any SQLRowBinding) throws -> Void) async throws {
        var collected: any SQLRowBinding = CollectedRows()
        for i in 0..<count { try row(i, &collected) }
        try await runEach(statement, (collected as! CollectedRows).rows)
    }

    /// Runs a statement for its first row.
    package func row(_ statement: SQLStatement) async throws -> SQLRow? { try await rows(statement).first }
}

/// A database opened for one store: connections, transactions and the engine's error mapping.
/// Everything the store means is written once above it, in ``DatabaseHealthStore``.
package protocol StoreDatabase: Sendable {
    /// The engine's SQL dialect (and the person, on a shared database).
    var dialect: SQLDialect { get }
    /// Where the store is, for messages (a path, or a redacted URL with the person).
    var location: String { get }
    /// Runs reads on one connection, each statement seeing the latest committed data.
    func read<T: Sendable>(_ body: (any SQLSession) async throws -> T) async throws -> T
    /// Runs reads in one snapshot, so they agree with each other.
    func snapshot<T: Sendable>(_ body: (any SQLSession) async throws -> T) async throws -> T
    /// Runs a write transaction that holds the store's write lock: all of it commits, or a
    /// throw rolls all of it back.
    func transaction<T: Sendable>(_ body: (any SQLSession) async throws -> T) async throws -> T
    /// A write transaction that is on disk when it returns, whatever the engine's usual
    /// durability: for what cannot be fetched again (a provider's rotated refresh token).
    func durableTransaction<T: Sendable>(_ body: (any SQLSession) async throws -> T) async throws -> T
    /// Writes log rows (audit entries, link accesses) in a transaction that does not hold the
    /// store's write lock; an engine may commit several stores' log rows together (PostgreSQL's
    /// group commit over one database).
    func logWrite(_ statements: [SQLStatement]) async throws
    /// Writes log rows as ``logWrite(_:)-([SQLStatement])`` does; an engine may merge several
    /// stores' rows of a table into one statement, so a store calls it only from a background
    /// flush that no request waits on (rows a caller waits for go as their own statements).
    func logWrite(_ rows: LogInsert) async throws
    /// The clock that schedules log batches for every store on this database, when stores
    /// share one (PostgreSQL); `nil` when each store schedules its own.
    var logTicker: LogFlushTicker? { get }
    /// Turns the engine's errors into ``HealthStoreError``s; others (a producer's) pass through.
    func mapError(_ error: any Error) -> any Error
    /// After deleting or re-sealing data: makes sure no old copy lingers in the engine's files
    /// where it can do so (SQLite empties its write-ahead log). Best effort.
    func scrub(vacuum: Bool) async throws
}
