import HealthStoreCore
import PostgresNIO
import Synchronization

/// Which statement texts run as named prepared statements.
///
/// PostgreSQL plans an unnamed statement every time it runs, and for the short statements of a
/// request (an access token with its app, the grants, the audit row) planning took longer than
/// running (pg_stat_statements: 0.15 ms to plan the token's statement, 0.03 to run it). A text
/// seen a second time is given a name; postgres-nio then prepares it once on each pooled
/// connection that runs it and afterwards only binds and executes. Only ``limit`` texts get a
/// name, so statements whose text varies with their input (lists of ids) cannot fill the
/// server's memory with prepared statements: the rest run as before. A text whose prepared run
/// failed runs unprepared from then on (a connection keeps a failed preparation under its name).
final class PreparedStatements: Sendable {
    private struct State {
        var names: [String: String] = [:]
        var seenOnce: Set<String> = []
        var refused: Set<String> = []
        /// Names are never given twice: a connection keeps what it prepared under a name, so a
        /// name once given means that text on every connection.
        var lastNumber = 0
    }

    private let state = Mutex(State())
    /// The most names ever given (each text prepared on each connection that runs it).
    let limit: Int

    init(limit: Int = 256) { self.limit = limit }

    /// The name a statement runs under; `nil` the first time its text (with its parameter
    /// types) is seen, and for texts past the limit or refused.
    func name(for key: String) -> String? {
        state.withLock { s in
            if let name = s.names[key] { return name }
            guard !s.refused.contains(key), s.lastNumber < limit else { return nil }
            guard s.seenOnce.remove(key) != nil else {
                // The texts seen once stay few: past the limit they are forgotten and start over.
                if s.seenOnce.count >= limit * 4 { s.seenOnce.removeAll(keepingCapacity: true) }
                s.seenOnce.insert(key)
                return nil
            }
            s.lastNumber += 1
            let name = "hr_\(s.lastNumber)"
            s.names[key] = name
            return name
        }
    }

    /// Runs a text unprepared from now on.
    func refuse(_ key: String) {
        state.withLock { s in
            s.names[key] = nil
            s.refused.insert(key)
        }
    }

    /// How many texts run prepared (tests read it).
    var preparedCount: Int { state.withLock { $0.names.count } }
}

/// One statement run as a named prepared statement. postgres-nio reads a prepared statement's
/// name, text and parameter types from its type, so they come from ``shape``, bound for the
/// call (read synchronously by `PostgresConnection.execute`, in the calling task).
struct NamedStatement: PostgresPreparedStatement {
    struct Shape: Sendable {
        let name: String
        let sql: String
        let types: [PostgresDataType]
    }

    @TaskLocal static var shape = Shape(name: "", sql: "", types: [])
    static var name: String { shape.name }
    static var sql: String { shape.sql }
    static var bindingDataTypes: [PostgresDataType] { shape.types }

    typealias Row = SQLRow
    let bindings: PostgresBindings

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> SQLRow { SQLRow(try row.map(PGSession.cell)) }
}
