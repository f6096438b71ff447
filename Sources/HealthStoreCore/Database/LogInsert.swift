/// Log rows of one table (apps' audited reads), written as multi-row INSERTs.
///
/// A statement per row could not keep up with a busy server: on PostgreSQL each is a round
/// trip, and the log fell seconds behind its reads, then wrote the backlog in later requests'
/// time (`Benchmarks/people-wrk.sh` prints the backlog). Rows name their person themselves
/// (the store's own, bound as a value), so PostgreSQL's group commit can write many people's
/// rows of a table in one statement: rows only, reading nobody's.
package struct LogInsert: Sendable {
    /// `INSERT INTO table (person_id, columns…) VALUES `: the same text for every store of a
    /// database, so inserts that share it can be merged.
    package let head: String
    /// Each row's values, the person's first on a database that holds many.
    package private(set) var rows: [[SQLValue]] = []
    /// The store's dialect without its person: the person is a value of each row here.
    private let dialect: SQLDialect
    private let person: String?

    /// The row counts a statement takes, largest first and no more than the dialect likes
    /// (one for SQLite, which prepares one text and binds each row): each table is written by
    /// a few texts, which PostgreSQL prepares once (``PreparedStatements`` names only so many).
    private static let sizes = [256, 64, 16, 4, 1]

    /// Rows for `table`'s `columns`, of the store whose dialect is `dialect`.
    package init(_ dialect: SQLDialect, table: String, columns: [String]) {
        self.dialect = dialect.withoutPerson
        person = dialect.person
        head = "INSERT INTO \(table) (" + ((person == nil ? [] : ["person_id"]) + columns).joined(separator: ", ") + ") VALUES "
    }

    /// Adds a row: a value for each column, in order.
    package mutating func append(_ values: [SQLValue]) {
        rows.append((person.map { [SQLValue.text($0)] } ?? []) + values)
    }

    /// The statements that write every row, in order.
    package func statements() -> [SQLStatement] {
        guard let width = rows.first?.count else { return [] }
        var statements: [SQLStatement] = []
        var texts: [Int: SQLStatement] = [:]
        for range in Self.chunks(rows.count, largest: dialect.rowsPerStatement) {
            let text = texts[range.count] ?? statement(rows: range.count, width: width)
            texts[range.count] = text
            statements.append(text.replacingValues(with: rows[range].joined()))
        }
        return statements
    }

    /// Inserts of the same table merged into one (their rows in order), others kept apart.
    package static func merged(_ inserts: [LogInsert]) -> [LogInsert] {
        var merged: [LogInsert] = []
        var index: [String: Int] = [:]
        for insert in inserts {
            if let i = index[insert.head] {
                merged[i].rows += insert.rows
            } else {
                index[insert.head] = merged.count
                merged.append(insert)
            }
        }
        return merged
    }

    /// Consecutive ranges of `0..<count`, each of one of ``sizes`` up to `largest`, largest first.
    static func chunks(_ count: Int, largest: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        for size in sizes where size <= max(1, largest) {
            while count - start >= size {
                ranges.append(start..<(start + size))
                start += size
            }
        }
        return ranges
    }

    private func statement(rows: Int, width: Int) -> SQLStatement {
        var q = SQLStatement(dialect, head)
        let row = self.rows[0]
        var tuples: [String] = []
        for _ in 0..<rows { tuples.append("(" + row.map { q.typed($0) }.joined(separator: ", ") + ")") }
        q += tuples.joined(separator: ", ")
        return q
    }
}
