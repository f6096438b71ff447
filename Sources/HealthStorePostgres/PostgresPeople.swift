import Foundation
import HealthStoreCore

/// The people of a PostgreSQL database (`--postgres URL` without `person=`). Adding and removing
/// are kept to the one person like every store statement; listing reads every person's row
/// and is the operator's view, on no request path (docs/scaling.md). Removing deletes the
/// person's row, which removes all their rows in every table (`ON DELETE CASCADE`), and nothing else.
public struct PostgresPeople: PeopleRegistry {
    public let database: PostgresHealthDatabase

    public init(database: PostgresHealthDatabase) { self.database = database }

    public func add(name: String) async throws -> PersonEntry {
        let clean = PersonEntry.cleanName(name)
        guard !clean.isEmpty else { throw HealthStoreError.invalidArgument("a person needs a name") }
        let entry = PersonEntry(id: PersonEntry.makeID(), name: clean, created: Date())
        let store = try await PostgresHealthStore.prepare(database, person: entry.id, lockTimeout: .seconds(10))
        var q = SQLStatement(store.dialect, "UPDATE person SET name = ")
        q += q.bind(entry.name) + ", created_date = " + q.bind(entry.created.timeIntervalSince1970) + " WHERE " + q.scope()
        let final = q
        try await store.read { session in try await session.run(final) }
        return entry
    }

    public func list() async throws -> [PersonEntry] {
        try await database.migrate()
        return try await database.withDirectConnection { session in
            // The one statement that spans people, on purpose: a Citus cluster run in strict
            // mode (docs/scaling.md) is told so for this transaction alone. On plain PostgreSQL
            // the setting is an unused placeholder.
            try await session.run("BEGIN READ ONLY")
            do {
                try await session.run("SET LOCAL citus.multi_task_query_log_level = 'off'")
                let rows = try await session.rows(
                    SQLStatement(PostgresHealthDatabase.unscoped, "SELECT person_id, name, created_date FROM person WHERE name IS NOT NULL ORDER BY created_date, person_id"))
                try await session.run("COMMIT")
                return try rows.map(Self.entry)
            } catch {
                try? await session.run("ROLLBACK")
                throw error
            }
        }
    }

    public func entry(id: String) async throws -> PersonEntry? {
        guard PersonEntry.isValidID(id) else { return nil }
        try await database.migrate()
        let store = PostgresStoreDatabase(database: database, dialect: .postgres(person: id), location: database.url.redacted, lockTimeout: .seconds(10))
        var q = SQLStatement(store.dialect, "SELECT person_id, name, created_date FROM person WHERE ")
        q += q.scope() + " AND name IS NOT NULL"
        let final = q
        return try await store.read { session in try await session.row(final).map(Self.entry) }
    }

    public func remove(id: String) async throws -> Bool {
        guard PersonEntry.isValidID(id) else { return false }
        try await database.migrate()
        let store = PostgresStoreDatabase(database: database, dialect: .postgres(person: id), location: database.url.redacted, lockTimeout: .seconds(10))
        var q = SQLStatement(store.dialect, "DELETE FROM person WHERE ")
        q += q.scope() + " AND name IS NOT NULL RETURNING person_id"
        let final = q
        return try await store.read { session in try await session.rows(final).count == 1 }
    }

    public func openStore(id: String, credentials: StoreCredentials?, clock: HealthClock) async throws -> DatabaseHealthStore {
        guard PersonEntry.isValidID(id) else { throw HealthStoreError.invalidArgument("\(id) is not a person's id") }
        return try await PostgresHealthStore(database: database, person: id, clock: clock, credentials: credentials)
    }

    public func serverSecret(_ name: String) async throws -> Data {
        try await database.migrate()
        return try await database.withDirectConnection { session in
            var insert = SQLStatement(PostgresHealthDatabase.unscoped, "INSERT INTO server_setting (name, value) VALUES (")
            insert += insert.bind(name) + ", " + insert.bind(Self.newSecret()) + ") ON CONFLICT (name) DO NOTHING"
            try await session.run(insert)
            var select = SQLStatement(PostgresHealthDatabase.unscoped, "SELECT value FROM server_setting WHERE name = ")
            select += select.bind(name)
            guard let row = try await session.row(select) else { throw HealthStoreError.database("the server secret \(name) was not kept") }
            return try row.data(0)
        }
    }

    public func catalogueApps() async throws -> [StoredApp] {
        try await database.migrate()
        return try await database.withDirectConnection { session in
            let rows = try await session.rows(
                SQLStatement(PostgresHealthDatabase.unscoped, "SELECT id, secret_digest, registered_date, details FROM app_catalogue ORDER BY registered_date, id"))
            return try rows.map { row in
                try ConsentCoding.app(id: try row.string(0), secretDigest: try row.data(1), registered: try row.double(2), details: try row.data(3))
            }
        }
    }

    public func addCatalogueApp(_ app: StoredApp) async throws {
        try await database.migrate()
        let r = app.registration
        try await database.withDirectConnection { session in
            var q = SQLStatement(PostgresHealthDatabase.unscoped, "INSERT INTO app_catalogue (id, secret_digest, registered_date, details) VALUES (")
            q += q.bind(r.id) + ", " + q.bind(app.secretDigest) + ", " + q.bind(r.registeredDate.timeIntervalSince1970) + ", " + q.bind(ConsentCoding.details(r)) + ")"
            try await session.run(q)
        }
    }

    public func removeCatalogueApp(id: String) async throws -> Bool {
        try await database.migrate()
        return try await database.withDirectConnection { session in
            var q = SQLStatement(PostgresHealthDatabase.unscoped, "DELETE FROM app_catalogue WHERE id = ")
            q += q.bind(id) + " RETURNING id"
            return try await session.rows(q).count == 1
        }
    }

    private static func entry(_ row: SQLRow) throws -> PersonEntry {
        PersonEntry(id: try row.string(0), name: try row.string(1), created: Date(timeIntervalSince1970: try row.double(2)))
    }
}
