import ClinicalRecords
import Foundation

/// Writes inside one transaction that holds the store's lock, numbering every change with the
/// store's next anchor; ``finish()`` stores the counter.
final class StoreWriter {
    let session: any SQLSession
    let dialect: SQLDialect
    let sealer: any RecordSealer
    private(set) var anchor: Int64
    private let startAnchor: Int64

    init(session: any SQLSession, dialect: SQLDialect, sealer: any RecordSealer, anchor: Int64) {
        self.session = session
        self.dialect = dialect
        self.sealer = sealer
        self.anchor = anchor
        startAnchor = anchor
    }

    /// A statement in the store's dialect.
    func sql(_ text: String = "") -> SQLStatement { SQLStatement(dialect, text) }

    func nextAnchor() -> Int64 {
        anchor += 1
        return anchor
    }

    /// Takes `count` anchors at once; returns the first.
    func nextAnchors(_ count: Int) -> Int64 {
        let first = anchor + 1
        anchor += Int64(count)
        return first
    }

    func finish() async throws {
        guard anchor != startAnchor else { return }
        let counter = dialect.anchorCounter
        var q = sql("UPDATE \(counter.table) SET \(counter.column) = ")
        q += q.bind(anchor) + " WHERE " + q.singleton
        try await session.run(q)
    }

    /// Inserts rows, as many in one statement as the dialect likes. `head` is
    /// `INSERT INTO table (columns) VALUES ` without the person's column, which is added. Rows
    /// all have the same width; a statement's text is made once per number of rows.
    func insert(_ head: String, _ rows: [[SQLValue]]) async throws {
        guard let width = rows.first?.count else { return }
        if dialect.rowsPerStatement == 1 {
            try await session.runEach(insertStatement(head, rows: 1, width: width), rows)
            return
        }
        var texts: [Int: SQLStatement] = [:]
        for start in stride(from: 0, to: rows.count, by: dialect.rowsPerStatement) {
            let chunk = rows[start..<min(start + dialect.rowsPerStatement, rows.count)]
            let statement = texts[chunk.count] ?? insertStatement(head, rows: chunk.count, width: width)
            texts[chunk.count] = statement
            try await session.run(statement.replacingValues(with: chunk.joined()))
        }
    }

    /// Inserts `count` rows of `width` values that `row(i, &binding)` binds and runs (see
    /// ``SQLSession/runEach(_:count:row:)``); an engine that takes one row per statement binds
    /// them in place, others get them as ``insert(_:_:)`` does.
    func insert(_ head: String, width: Int, count: Int, row: (Int, inout any SQLRowBinding) throws -> Void) async throws {
        guard count > 0 else { return }
        if dialect.rowsPerStatement == 1 {
            try await session.runEach(insertStatement(head, rows: 1, width: width), count: count, row: row)
            return
        }
        var collected: any SQLRowBinding = CollectedRows()
        for i in 0..<count { try row(i, &collected) }
        try await insert(head, (collected as! CollectedRows).rows)
    }

    /// `head` with `rows` tuples of `width` placeholders (after the person's).
    private func insertStatement(_ head: String, rows: Int, width: Int) -> SQLStatement {
        var q = sql()
        let open = head.firstIndex(of: "(").map { head.index(after: $0) } ?? head.endIndex
        q += String(head[..<open]) + q.personColumn + String(head[open...])
        var tuples: [String] = []
        for _ in 0..<rows {
            var values: [String] = []
            for _ in 0..<width { values.append(q.bind(.int(nil))) }
            tuples.append("(" + q.personValue + values.joined(separator: ", ") + ")")
        }
        q += tuples.joined(separator: ", ")
        return q
    }

    /// The row id of a source, made when new; its name is updated when it changed.
    func sourceID(for source: RecordSource) async throws -> Int64 {
        let identity = ConsentCoding.sourceIdentity(source.identifier, sealer)
        var find = sql("SELECT id, name FROM source WHERE ")
        find += find.scope() + " AND identity = " + find.bind(identity)
        if let row = try await session.row(find) {
            let id = try row.int(0)
            if try row.opened(1, sealer) != source.name {
                var update = sql("UPDATE source SET name = ")
                update += update.bind(try sealer.seal(Data(source.name.utf8))) + " WHERE " + update.scope() + " AND id = " + update.bind(id)
                try await session.run(update)
            }
            return id
        }
        var insert = sql("INSERT INTO source (")
        insert += insert.personColumn + "identity, identifier, name) VALUES (" + insert.personValue + insert.bind(identity) + ", "
        insert += insert.bind(try sealer.seal(Data(source.identifier.utf8))) + ", " + insert.bind(try sealer.seal(Data(source.name.utf8))) + ") RETURNING id"
        guard let id = try await session.row(insert)?.int(0) else { throw HealthStoreError.database("no id for a new source") }
        return id
    }

    /// The id of a source if it exists.
    func existingSourceID(_ identifier: String) async throws -> Int64? {
        var find = sql("SELECT id FROM source WHERE ")
        find += find.scope() + " AND identity = " + find.bind(ConsentCoding.sourceIdentity(identifier, sealer))
        return try await session.row(find)?.int(0)
    }
}
