import Synchronization

/// Counts the statements a store runs while counting is on: how tests hold a page to a bounded
/// number of queries whatever the store holds. Off, it costs one atomic load per read or write.
package final class StatementCounter: Sendable {
    private let counting = Atomic<Bool>(false)
    private let count = Atomic<Int>(0)

    package init() {}

    /// Starts counting from zero.
    package func start() {
        count.store(0, ordering: .sequentiallyConsistent)
        counting.store(true, ordering: .sequentiallyConsistent)
    }

    /// Stops counting; how many statements ran since ``start()``.
    package func stop() -> Int {
        counting.store(false, ordering: .sequentiallyConsistent)
        return count.load(ordering: .sequentiallyConsistent)
    }

    /// The session, counted when counting is on.
    func counted(_ session: any SQLSession) -> any SQLSession {
        counting.load(ordering: .relaxed) ? CountedSession(base: session, counter: self) : session
    }

    fileprivate func add(_ n: Int) { count.add(n, ordering: .relaxed) }
}

/// A session whose every statement is counted.
private struct CountedSession: SQLSession {
    let base: any SQLSession
    let counter: StatementCounter

    func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
        counter.add(1)
        return try await base.rows(statement)
    }

    func run(_ statement: SQLStatement) async throws {
        counter.add(1)
        try await base.run(statement)
    }

    func runEach(_ statement: SQLStatement, _ rows: [[SQLValue]]) async throws {
        counter.add(rows.count)
        try await base.runEach(statement, rows)
    }

    func runEach(_ statement: SQLStatement, count: Int, row: (Int, inout any SQLRowBinding) throws -> Void) async throws {
        counter.add(count)
        try await base.runEach(statement, count: count, row: row)
    }
}
