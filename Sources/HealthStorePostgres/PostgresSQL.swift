import Foundation
import HealthStoreCore
import PostgresNIO

extension SQLDialect {
    /// PostgreSQL's SQL for one person of many (every statement kept to them by
    /// ``SQLStatement``): the person's row is the anchor counter and the write lock, a
    /// resource's first anchor its id.
    static func postgres(person: String?) -> SQLDialect {
        SQLDialect(
            placeholders: .dollar, person: person, typedValues: true, greatest: "GREATEST", byteOrder: " COLLATE \"C\"", rowsPerStatement: 1000,
            pagesInOneStatement: true, anchors: .init(table: "person", column: "anchor", resourceAdded: "id", rowIDIsAnchor: true, lockClause: " FOR UPDATE"))
    }
}

/// A connection leased for one operation.
struct PGSession: SQLSession {
    let connection: PostgresConnection
    let logger: Logger
    /// Sees every statement's text (the person-scope test); `nil` in use.
    var observer: (@Sendable (SQLStatement) -> Void)? = nil
    /// The texts that run prepared on pooled connections; `nil` on a connection of its own
    /// (migrations, the registry), which runs every statement unnamed.
    var prepared: PreparedStatements? = nil

    func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
        observer?(statement)
        var binds = PostgresBindings()
        var types: [PostgresDataType] = []
        types.reserveCapacity(statement.values.count)
        for value in statement.values {
            switch value {
            case .int(let v):
                binds.append(v)
                types.append(.int8)
            case .double(let v):
                binds.append(v)
                types.append(.float8)
            case .text(let v):
                binds.append(v)
                types.append(.text)
            case .blob(let v):
                binds.append(v.map { ByteBuffer(data: $0) })
                types.append(.bytea)
            }
        }
        // Statements with values are the repeated ones (plain SQL is BEGIN, COMMIT, SET).
        if let prepared, !types.isEmpty {
            let key = statement.text + "\u{0}" + types.map { String($0.rawValue) }.joined(separator: ",")
            if let name = prepared.name(for: key) {
                do {
                    return try await NamedStatement.$shape.withValue(.init(name: name, sql: statement.text, types: types)) {
                        var rows: [SQLRow] = []
                        for try await row in try await connection.execute(NamedStatement(bindings: binds), logger: logger) { rows.append(row) }
                        return rows
                    }
                } catch {
                    prepared.refuse(key)
                    throw error
                }
            }
        }
        let rows = try await connection.query(PostgresQuery(unsafeSQL: statement.text, binds: binds), logger: logger).collect()
        return try rows.map { row in SQLRow(try row.map(Self.cell)) }
    }

    func run(_ statement: SQLStatement) async throws { _ = try await rows(statement) }

    /// Runs plain SQL without values.
    func run(_ sql: String) async throws { try await run(SQLStatement(.postgres(person: nil), sql)) }

    static func cell(_ cell: PostgresCell) throws -> SQLCell {
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
    let dialect: SQLDialect
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

    func logWrite(_ statements: [SQLStatement]) async throws {
        try await database.logWriter.write(statements, on: database, lockTimeout: lockTimeout)
    }

    func logWrite(_ rows: LogInsert) async throws {
        try await database.logWriter.write(rows, on: database, lockTimeout: lockTimeout)
    }

    var logTicker: LogFlushTicker? { database.logTicker }

    func mapError(_ error: any Error) -> any Error { PostgresErrors.map(error, location: location) }

    /// Old row versions stay until PostgreSQL's vacuum; nothing to do per write.
    func scrub(vacuum: Bool) async throws {}
}
