import Foundation
import HealthStoreCore

/// A person's store in a PostgreSQL database shared by many people. The same type as
/// ``SQLiteHealthStore`` (``DatabaseHealthStore``), opened on a database and a person.
public typealias PostgresHealthStore = DatabaseHealthStore

extension DatabaseHealthStore {
    /// Opens a person's store in a database with a given sealer, creating the person when new.
    ///
    /// An encrypted store opened this way (without its key) is locked: every operation fails
    /// with ``HealthStoreError/storeLocked(path:)``.
    ///
    /// - Parameters:
    ///   - lockTimeout: how long a write waits for another writer of the same person before
    ///     failing with ``HealthStoreError/storeBusy(path:)``.
    public convenience init(
        database: PostgresHealthDatabase, person: String, clock: HealthClock = .system, sealer: any RecordSealer = PlainSealer(),
        lockTimeout: Duration = .seconds(10)
    ) async throws(HealthStoreError) {
        try await self.init(opening: Self.prepare(database, person: person, lockTimeout: lockTimeout), clock: clock, sealer: sealer)
    }

    /// Opens a person's store in a database, encrypted when credentials are given — as
    /// ``init(path:clock:credentials:kdf:busyTimeout:)`` does for a file.
    ///
    /// - Throws: ``HealthStoreError/wrongPassphrase(path:)`` when the credentials do not unwrap the key.
    public convenience init(
        database: PostgresHealthDatabase, person: String, clock: HealthClock = .system, credentials: StoreCredentials?,
        kdf: KDFParameters = .standard, lockTimeout: Duration = .seconds(10)
    ) async throws(HealthStoreError) {
        try await self.init(opening: Self.prepare(database, person: person, lockTimeout: lockTimeout), clock: clock, credentials: credentials, kdf: kdf)
    }

    /// Opens the store a URL names (`postgres://…?person=ID`, or `person` given here), with a
    /// connection pool of its own.
    public convenience init(
        url: String, person: String? = nil, clock: HealthClock = .system, credentials: StoreCredentials?, kdf: KDFParameters = .standard,
        lockTimeout: Duration = .seconds(10)
    ) async throws(HealthStoreError) {
        let parsed = try PostgresStoreURL(url)
        guard let who = person ?? parsed.person else {
            throw .invalidArgument("name the person whose store it is: ?person=ID in the PostgreSQL URL")
        }
        try await self.init(
            database: PostgresHealthDatabase(url: parsed), person: who, clock: clock, credentials: credentials, kdf: kdf, lockTimeout: lockTimeout)
    }

    /// Encrypts a person's plain store in place. Other people's stores are untouched.
    ///
    /// PostgreSQL keeps old row versions until vacuum: run `VACUUM` on the tables afterwards to
    /// drop the plaintext versions from the files.
    ///
    /// - Throws: ``HealthStoreError/alreadyEncrypted(path:)``, ``HealthStoreError/storeBusy(path:)``.
    public static func encrypt(
        database: PostgresHealthDatabase, person: String, credentials: StoreCredentials, kdf: KDFParameters = .standard, clock: HealthClock = .system
    ) async throws(HealthStoreError) {
        try await encrypt(prepare(database, person: person, lockTimeout: .seconds(10)), credentials: credentials, kdf: kdf, clock: clock)
    }

    /// Migrates the database and makes sure the person exists.
    static func prepare(_ database: PostgresHealthDatabase, person: String, lockTimeout: Duration) async throws(HealthStoreError) -> PostgresStoreDatabase {
        let person = try PostgresStoreURL.checkedPerson(person)
        let location = "\(database.url.redacted)?person=\(person.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? person)"
        try await database.migrate()
        let store = PostgresStoreDatabase(database: database, dialect: .postgres(person: person), location: location, lockTimeout: lockTimeout)
        var insert = SQLStatement(store.dialect, "INSERT INTO person (person_id, anchor, created_date) VALUES (")
        insert += insert.singletonValue + ", 0, " + insert.bind(Date().timeIntervalSince1970) + ") ON CONFLICT (person_id) DO NOTHING"
        let final = insert
        do {
            try await store.read { session in try await session.run(final) }
        } catch {
            throw PostgresErrors.map(error, location: location) as? HealthStoreError ?? .cannotOpen(path: location, reason: "\(error)")
        }
        return store
    }
}
