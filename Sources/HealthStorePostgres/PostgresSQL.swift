import Foundation
import HealthStoreCore
import PostgresNIO

/// SQL text with its bound values, built up piece by piece; every value is a bind, never text.
struct PGQuery: Sendable {
    private(set) var text: String
    private(set) var binds = PostgresBindings()

    init(_ text: String = "") { self.text = text }

    /// Appends SQL text.
    mutating func append(_ sql: String) { text += sql }

    static func += (q: inout PGQuery, sql: String) { q.append(sql) }

    /// Binds a value and returns its placeholder (`$n`).
    mutating func bind(_ value: some PostgresDynamicTypeEncodable) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    /// Binds a value or NULL and returns its placeholder.
    mutating func bind<T: PostgresDynamicTypeEncodable>(_ value: T?) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    /// Binds bytes (bytea) and returns their placeholder.
    mutating func bind(_ data: Data) -> String { bind(ByteBuffer(data: data)) }

    /// Binds bytes or NULL and returns their placeholder.
    mutating func bind(_ data: Data?) -> String { bind(data.map { ByteBuffer(data: $0) }) }

    /// `$a, $b, …` for byte values; `NULL` (matching nothing) for none.
    mutating func list(_ values: [Data]) -> String {
        values.isEmpty ? "NULL" : values.map { bind($0) }.joined(separator: ", ")
    }

    /// `$a, $b, …` for integers; `NULL` (matching nothing) for none.
    mutating func list(_ values: [Int64]) -> String {
        values.isEmpty ? "NULL" : values.map { bind($0) }.joined(separator: ", ")
    }

    var query: PostgresQuery { PostgresQuery(unsafeSQL: text, binds: binds) }
}

/// One result row, read by column position; a value of the wrong type is a damaged record.
struct PGRow {
    let cells: PostgresRandomAccessRow

    func decode<T: PostgresDecodable>(_ index: Int, _: T.Type = T.self) throws -> T {
        do { return try cells[index].decode(T.self) } catch {
            throw HealthStoreError.corruptRecord("column \(cells[index].columnName) holds no \(T.self)")
        }
    }

    func int(_ i: Int) throws -> Int64 { try decode(i) }
    func double(_ i: Int) throws -> Double { try decode(i) }
    func string(_ i: Int) throws -> String { try decode(i) }
    func data(_ i: Int) throws -> Data { try decode(i) }
    func optionalDouble(_ i: Int) throws -> Double? { try decode(i) }
    func optionalString(_ i: Int) throws -> String? { try decode(i) }
    func optionalData(_ i: Int) throws -> Data? { try decode(i) }
    func optionalInt(_ i: Int) throws -> Int64? { try decode(i) }
    func bool(_ i: Int) throws -> Bool { try decode(i) }

    /// A sealed column opened as text.
    func opened(_ i: Int, _ sealer: any RecordSealer) throws -> String { String(decoding: try sealer.open(try data(i)), as: UTF8.self) }
}

/// A connection leased for one operation, with the logger its queries use.
struct PGSession {
    let connection: PostgresConnection
    let logger: Logger

    /// Runs a query and collects its rows.
    func rows(_ q: PGQuery) async throws -> [PGRow] {
        try await connection.query(q.query, logger: logger).collect().map { PGRow(cells: $0.makeRandomAccess()) }
    }

    /// Runs a query for its first row.
    func row(_ q: PGQuery) async throws -> PGRow? { try await rows(q).first }

    /// Runs a statement, ignoring any rows.
    func run(_ q: PGQuery) async throws { _ = try await rows(q) }

    /// Runs plain SQL without values.
    func run(_ sql: String) async throws { try await run(PGQuery(sql)) }
}
