import CSQLite
import Foundation
import HealthStoreCore

/// A folder of people's SQLite stores (`--people DIR`): `DIR/people.sqlite` lists them, and each
/// person's store is `DIR/<id>.sqlite`, with its own data key when it is encrypted. Removing a
/// person deletes their row and their store's files, and nothing else.
public struct SQLitePeople: PeopleRegistry {
    /// The folder.
    public let directory: String

    /// A registry over `directory`, made when missing.
    public init(directory: String) throws(HealthStoreError) {
        self.directory = directory
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw .cannotOpen(path: directory, reason: "\(error)")
        }
        try withRegistry { c in
            try c.execute("CREATE TABLE IF NOT EXISTS person (id TEXT PRIMARY KEY, name TEXT NOT NULL, created REAL NOT NULL)")
            try c.execute("CREATE TABLE IF NOT EXISTS server_setting (name TEXT PRIMARY KEY, value BLOB NOT NULL)")
            try c.execute(
                "CREATE TABLE IF NOT EXISTS app_catalogue (id TEXT PRIMARY KEY, secret_digest BLOB NOT NULL, registered_date REAL NOT NULL, details BLOB NOT NULL)")
        }
    }

    /// The store file of a person.
    public func storePath(_ id: String) -> String { Self.storePathIn(directory, id) }

    /// The store file of a person in a folder of people's stores.
    public static func storePathIn(_ directory: String, _ id: String) -> String { (directory as NSString).appendingPathComponent(id + ".sqlite") }

    public func add(name: String) async throws -> PersonEntry {
        let clean = PersonEntry.cleanName(name)
        guard !clean.isEmpty else { throw HealthStoreError.invalidArgument("a person needs a name") }
        let entry = PersonEntry(id: PersonEntry.makeID(), name: clean, created: Date())
        try withRegistry { c in
            _ = try c.rows("INSERT INTO person (id, name, created) VALUES (?1, ?2, ?3)", [.text(entry.id), .text(entry.name), .double(entry.created.timeIntervalSince1970)])
        }
        return entry
    }

    public func list() async throws -> [PersonEntry] {
        try withRegistry { c in try c.rows("SELECT id, name, created FROM person ORDER BY created, id", []).map(Self.entry) }
    }

    public func entry(id: String) async throws -> PersonEntry? {
        guard PersonEntry.isValidID(id) else { return nil }
        return try withRegistry { c in try c.rows("SELECT id, name, created FROM person WHERE id = ?1", [.text(id)]).first.map(Self.entry) }
    }

    public func remove(id: String) async throws -> Bool {
        guard PersonEntry.isValidID(id) else { return false }
        let removed = try withRegistry { c in try c.rows("DELETE FROM person WHERE id = ?1 RETURNING id", [.text(id)]).count == 1 }
        guard removed else { return false }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storePath(id) + suffix) }
        return true
    }

    public func openStore(id: String, credentials: StoreCredentials?, clock: HealthClock) async throws -> DatabaseHealthStore {
        guard PersonEntry.isValidID(id) else { throw HealthStoreError.invalidArgument("\(id) is not a person's id") }
        return try await SQLiteHealthStore(path: storePath(id), clock: clock, credentials: credentials)
    }

    public func serverSecret(_ name: String) async throws -> Data {
        try withRegistry { c in
            _ = try c.rows("INSERT INTO server_setting (name, value) VALUES (?1, ?2) ON CONFLICT (name) DO NOTHING", [.text(name), .blob(Self.newSecret())])
            guard let row = try c.rows("SELECT value FROM server_setting WHERE name = ?1", [.text(name)]).first else {
                throw HealthStoreError.database("the server secret \(name) was not kept")
            }
            return try row.data(0)
        }
    }

    public func catalogueApps() async throws -> [StoredApp] {
        try withRegistry { c in
            try c.rows("SELECT id, secret_digest, registered_date, details FROM app_catalogue ORDER BY registered_date, id", []).map { row in
                try ConsentCoding.app(id: try row.string(0), secretDigest: try row.data(1), registered: try row.double(2), details: try row.data(3))
            }
        }
    }

    public func addCatalogueApp(_ app: StoredApp) async throws {
        let r = app.registration
        try withRegistry { c in
            _ = try c.rows(
                "INSERT INTO app_catalogue (id, secret_digest, registered_date, details) VALUES (?1, ?2, ?3, ?4)",
                [.text(r.id), .blob(app.secretDigest), .double(r.registeredDate.timeIntervalSince1970), .blob(ConsentCoding.details(r))])
        }
    }

    public func removeCatalogueApp(id: String) async throws -> Bool {
        try withRegistry { c in try c.rows("DELETE FROM app_catalogue WHERE id = ?1 RETURNING id", [.text(id)]).count == 1 }
    }

    private static func entry(_ row: SQLRow) throws -> PersonEntry {
        PersonEntry(id: try row.string(0), name: try row.string(1), created: Date(timeIntervalSince1970: try row.double(2)))
    }

    private func withRegistry<T>(_ body: (SQLiteConnection) throws -> T) throws(HealthStoreError) -> T {
        let path = (directory as NSString).appendingPathComponent("people.sqlite")
        do {
            let connection = try SQLiteConnection(path: path, busyTimeout: 5)
            return try body(connection)
        } catch let error as HealthStoreError {
            throw error
        } catch {
            throw .cannotOpen(path: path, reason: "\(error)")
        }
    }
}
