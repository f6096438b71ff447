import Foundation
import HealthStoreCore
import PostgresNIO

/// PostgreSQL's SQL: `$n` placeholders, many people per database (every statement kept to one
/// by ``SQLStatement``), the person's row as the anchor counter and write lock, a resource's
/// first anchor as its id.
struct PostgresDialect: SQLDialect {
    let person: String?
    func placeholder(_ index: Int) -> String { "$\(index)" }

    /// Typed: a VALUES list would read a NULL as text.
    func cast(_ placeholder: String, _ value: SQLValue) -> String {
        switch value {
        case .int: return placeholder + "::bigint"
        case .double: return placeholder + "::double precision"
        case .text: return placeholder + "::text"
        case .blob: return placeholder + "::bytea"
        }
    }

    var resourceAddedColumn: String { "id" }
    var rowIDIsAnchor: Bool { true }
    var anchorCounter: (table: String, column: String) { ("person", "anchor") }
    var lockClause: String { " FOR UPDATE" }
    var greatest: String { "GREATEST" }
    var byteOrder: String { " COLLATE \"C\"" }
}

/// A connection leased for one operation.
struct PGSession: SQLSession {
    let connection: PostgresConnection
    let logger: Logger
    /// Sees every statement's text (the person-scope test); `nil` in use.
    var observer: (@Sendable (String) -> Void)? = nil

    func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
        observer?(statement.text)
        var binds = PostgresBindings()
        for value in statement.values {
            switch value {
            case .int(let v): binds.append(v)
            case .double(let v): binds.append(v)
            case .text(let v): binds.append(v)
            case .blob(let v): binds.append(v.map { ByteBuffer(data: $0) })
            }
        }
        let rows = try await connection.query(PostgresQuery(unsafeSQL: statement.text, binds: binds), logger: logger).collect()
        return try rows.map { row in SQLRow(try row.map(Self.cell)) }
    }

    func run(_ statement: SQLStatement) async throws { _ = try await rows(statement) }

    /// Runs plain SQL without values.
    func run(_ sql: String) async throws { try await run(SQLStatement(PostgresDialect(person: nil), sql)) }

    private static func cell(_ cell: PostgresCell) throws -> SQLCell {
        guard cell.bytes != nil else { return .null }
        do {
            switch cell.dataType {
            case .int8: return .int(try cell.decode(Int64.self))
            case .int4: return .int(Int64(try cell.decode(Int32.self)))
            case .int2: return .int(Int64(try cell.decode(Int16.self)))
            case .float8: return .double(try cell.decode(Double.self))
            case .float4: return .double(Double(try cell.decode(Float.self)))
            case .bool: return .int(try cell.decode(Bool.self) ? 1 : 0)
            case .bytea: return .blob(try cell.decode(Data.self))
            default: return .text(try cell.decode(String.self))
            }
        } catch {
            throw HealthStoreError.corruptRecord("column \(cell.columnName) holds no value of its type \(cell.dataType)")
        }
    }
}

/// A person's store in a shared database: pooled connections, the person's row lock for writes.
struct PostgresStoreDatabase: StoreDatabase {
    let database: PostgresHealthDatabase
    let dialect: any SQLDialect
    let location: String
    let lockTimeout: Duration

    func read<T: Sendable>(_ body: (any SQLSession) async throws -> T) async throws -> T {
        try await database.client.withConnection { try await body(database.session($0)) }
    }

    func snapshot<T: Sendable>(_ body: (any SQLSession) async throws -> T) async throws -> T {
        try await inTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    func transaction<T: Sendable>(_ body: (any SQLSession) async throws -> T) async throws -> T {
        let ms = lockTimeout.components.seconds * 1000 + lockTimeout.components.attoseconds / 1_000_000_000_000_000
        return try await inTransaction("BEGIN; SET LOCAL lock_timeout = \(max(ms, 1))", body)
    }

    private func inTransaction<T: Sendable>(_ begin: String, _ body: (any SQLSession) async throws -> T) async throws -> T {
        try await database.client.withConnection { connection in
            let session = database.session(connection)
            for statement in begin.split(separator: ";") { try await session.run(String(statement)) }
            do {
                let result = try await body(session)
                try await session.run("COMMIT")
                return result
            } catch {
                try? await session.run("ROLLBACK")
                throw error
            }
        }
    }

    func mapError(_ error: any Error) -> any Error { PostgresErrors.map(error, location: location) }

    /// Old row versions stay until PostgreSQL's vacuum; nothing to do per write.
    func scrub(vacuum: Bool) async throws {}
}
