import Foundation
import HealthStoreCore
import Synchronization

/// Writes the log rows (apps' audited reads, accesses to hosted links) of every person's store on
/// one database in shared transactions: a group commit.
///
/// Each store batches its own entries for 50 ms (`BatchQueue`); with one person that is one
/// transaction for many reads. With a thousand people each reading now and then, it was one
/// transaction per read — measured at a third of the many-people server's throughput
/// (Benchmarks/people-wrk.sh). Here a store's batch joins whatever batches wait while the
/// previous transaction runs, and they commit together. Every statement is still its own
/// person's (each was built by that person's store, scoped to them); only the transaction is
/// shared. If a shared transaction fails, each batch is tried alone, so one person's failure
/// (a lock held by their import, their row removed) does not hold back the others' logs.
///
/// Before the first transaction and after each one the writer pauses for ``gather``: at a
/// thousand people each batch held one entry, so without the pause a transaction took the one
/// or two batches that came during the last one — hundreds of transactions a second, each four
/// round trips. With it, every batch of those milliseconds (a tick of ``LogFlushTicker``
/// flushes many stores at once) goes in one transaction; a reader's flush waits that much more.
///
/// Within a transaction, the rows of one table from every waiting store are written together,
/// a few hundred to a statement (``LogInsert``): at a thousand people each store's batch is
/// one row, and a statement per row, each a round trip, fell seconds behind the reads it logs.
/// Each row names its own person, bound from its store; the statement reads nobody's rows.
/// Only a store's background flush at a tick sends merged rows, and no request waits on it; a
/// flush that a request waits for (a person reading their log) sends that person's statements
/// alone (`flushAudit()`), so no statement on a request path reaches two people. Statements of
/// one person each, at the tick too, cost the many-people benchmark a tenth of its throughput
/// (0.75 of one person's on four connections, against 0.82–0.90 merged; on one connection the
/// log fell 3,449 rows behind). On Citus a merged statement touches several shards; a cluster in the
/// strict mode of docs/scaling.md commits it all the same (`SharedLogWriterTests` there).
final class SharedLogWriter: Sendable {
    private struct Waiting: Sendable {
        var statements: [SQLStatement] = []
        var rows: LogInsert? = nil
        let done: CheckedContinuation<Void, any Error>

        /// What it adds to a transaction, in rows.
        var size: Int { statements.count + (rows?.rows.count ?? 0) }
        /// Its statements when it is written alone.
        var alone: [SQLStatement] { statements + (rows?.statements() ?? []) }
    }

    /// The most rows (or statements) one shared transaction takes.
    static let maximumStatements = 2000

    private let state = Mutex<(waiting: [Waiting], draining: Bool)>(([], false))
    private let committed = Atomic<Int>(0)
    private let committedStatements = Atomic<Int>(0)
    /// How long the writer waits after a transaction for more batches to join the next.
    let gather: Duration

    /// Makes a writer that pauses `gather` between shared transactions.
    init(gather: Duration = .milliseconds(10)) {
        self.gather = gather
    }

    /// How many shared transactions have committed (each batch tried alone after a failure
    /// is not counted).
    var transactions: Int { committed.load(ordering: .relaxed) }

    /// How many statements those transactions held.
    var statements: Int { committedStatements.load(ordering: .relaxed) }

    /// Writes `statements` in a transaction, possibly shared with other stores' batches;
    /// returns once they are committed.
    func write(_ statements: [SQLStatement], on database: PostgresHealthDatabase, lockTimeout: Duration) async throws {
        guard !statements.isEmpty else { return }
        try await write({ Waiting(statements: statements, done: $0) }, on: database, lockTimeout: lockTimeout)
    }

    /// Writes log rows in a transaction, possibly in the same statements as other stores' rows
    /// of the table; returns once they are committed.
    func write(_ rows: LogInsert, on database: PostgresHealthDatabase, lockTimeout: Duration) async throws {
        guard !rows.rows.isEmpty else { return }
        try await write({ Waiting(rows: rows, done: $0) }, on: database, lockTimeout: lockTimeout)
    }

    private func write(
        _ waiting: @escaping (CheckedContinuation<Void, any Error>) -> Waiting, on database: PostgresHealthDatabase, lockTimeout: Duration
    ) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let start = state.withLock { s -> Bool in
                s.waiting.append(waiting(continuation))
                if s.draining { return false }
                s.draining = true
                return true
            }
            if start { Task { await self.drain(database, lockTimeout: lockTimeout) } }
        }
    }

    private func drain(_ database: PostgresHealthDatabase, lockTimeout: Duration) async {
        // The stores of a database flush together at their ticker's tick: the pause lets the
        // whole burst arrive before the first transaction takes it.
        if gather > .zero { try? await Task.sleep(for: gather) }
        while true {
            let batch: [Waiting] = state.withLock { s in
                var taken: [Waiting] = []
                var count = 0
                while let next = s.waiting.first, taken.isEmpty || count + next.size <= Self.maximumStatements {
                    taken.append(next)
                    count += next.size
                    s.waiting.removeFirst()
                }
                if taken.isEmpty { s.draining = false }
                return taken
            }
            if batch.isEmpty { return }
            do {
                let statements = batch.flatMap(\.statements) + LogInsert.merged(batch.compactMap(\.rows)).flatMap { $0.statements() }
                try await Self.transaction(statements, database, lockTimeout)
                committed.add(1, ordering: .relaxed)
                committedStatements.add(statements.count, ordering: .relaxed)
                for w in batch { w.done.resume() }
                if gather > .zero { try? await Task.sleep(for: gather) }
            } catch {
                if batch.count == 1 {
                    batch[0].done.resume(throwing: error)
                    continue
                }
                for w in batch {
                    do {
                        try await Self.transaction(w.alone, database, lockTimeout)
                        w.done.resume()
                    } catch {
                        w.done.resume(throwing: error)
                    }
                }
            }
        }
    }

    private static func transaction(_ statements: [SQLStatement], _ database: PostgresHealthDatabase, _ lockTimeout: Duration) async throws {
        let store = PostgresStoreDatabase(database: database, dialect: PostgresHealthDatabase.unscoped, location: database.url.redacted, lockTimeout: lockTimeout)
        try await store.transaction { session in
            for statement in statements { try await session.run(statement) }
        }
    }
}
