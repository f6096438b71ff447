import ArgumentParser
import Foundation
import HealthStoreCore
import HealthStoreSQLite
import HealthStorePostgres

/// Where the store lives — a SQLite file (`--store PATH`, else `HEALTHRECORDS_STORE`, else the
/// per-user data folder) or a person's store in PostgreSQL (`--postgres URL`) — and what
/// unlocks it: `--key-file`, else `HEALTHRECORDS_PASSPHRASE`, else the unlock session
/// `healthrecords unlock` left (see ``UnlockSession``).
///
/// `HEALTHRECORDS_POSTGRES_URL` is not read here: it is the test suite's switch, and a test run
/// sets it for every process it starts, including commands meant for a file.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The store file (default: $HEALTHRECORDS_STORE, else ~/.local/share/healthrecords/store.sqlite).")
    var store: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A person's store in PostgreSQL instead of a file: postgres://user@host:port/database?person=ID.",
            discussion: "The password may be left out of the URL and given in PGPASSWORD. sslmode=disable|require; loopback hosts default to disable, others to require."))
    var postgres: String?

    @Option(name: .long, help: "A folder of people's stores (serve --people): with --person, that person's store.")
    var people: String?

    @Option(name: .long, help: "The person whose store it is, by id (`healthrecords people list`): with --people DIR, or with --postgres URL without person=.")
    var person: String?

    @Option(name: .long, help: "A key file (at least 32 random bytes) that unlocks the store, or encrypts a new one.")
    var keyFile: String?

    func validate() throws {
        if store != nil && postgres != nil { throw ValidationError("give --store or --postgres, not both") }
        if people != nil && (store != nil || postgres != nil) { throw ValidationError("give --people DIR or --store or --postgres, not two") }
        if person != nil && people == nil && postgres == nil { throw ValidationError("--person ID goes with --people DIR or --postgres URL") }
    }

    /// The SQLite path the options resolve to (when not PostgreSQL).
    var path: String {
        if let people, let person { return SQLitePeople.storePathIn(people, person) }
        if let store { return store }
        let env = ProcessInfo.processInfo.environment
        if let p = env["HEALTHRECORDS_STORE"], !p.isEmpty { return p }
        let base = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
        return (base as NSString).appendingPathComponent("healthrecords/store.sqlite")
    }

    /// The PostgreSQL URL, with the password from `PGPASSWORD` when the URL has none.
    func postgresURL() throws -> PostgresStoreURL? {
        guard let postgres else { return nil }
        var url: PostgresStoreURL
        do { url = try PostgresStoreURL(postgres) } catch { throw CommandFailure.usage(error.description) }
        if url.password == nil, let p = ProcessInfo.processInfo.environment["PGPASSWORD"], !p.isEmpty { url.password = p }
        if let person {
            if let given = url.person, given != person { throw CommandFailure.usage("--person \(person) and person=\(given) in the URL differ") }
            url.person = person
        }
        guard url.person != nil else { throw CommandFailure.usage("name the person whose store it is: --person ID, or --postgres 'postgres://…/db?person=ID'") }
        return url
    }

    /// What names the store in messages and unlock sessions: the file's path, or the
    /// PostgreSQL URL (without its password) and person.
    var location: String {
        guard let url = try? postgresURL() else { return path }
        return "\(url.redacted)?person=\(url.person ?? "")"
    }

    /// The unlock session, keyed by the file's path, or for PostgreSQL by the redacted URL and person.
    var session: UnlockSession {
        postgres == nil ? UnlockSession(storePath: path) : UnlockSession(key: location)
    }

    /// The passphrase from `HEALTHRECORDS_PASSPHRASE`, if set.
    static var environmentPassphrase: String? {
        ProcessInfo.processInfo.environment["HEALTHRECORDS_PASSPHRASE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Credentials given explicitly: the key file, else the passphrase in the environment.
    func givenCredentials() throws -> StoreCredentials? {
        if let keyFile {
            do { return try StoreCredentials.keyFile(at: keyFile) } catch { throw CommandFailure.usage(error.description) }
        }
        return Self.environmentPassphrase.map(StoreCredentials.passphrase)
    }

    /// Opens the store, unlocked when credentials or an unlock session are at hand. A new
    /// store opened with credentials is encrypted from its first row.
    ///
    /// - Throws: exit 1 for a locked store (`store locked`) or a wrong passphrase; exit 2 when
    ///   the store cannot be opened.
    func open() async throws -> DatabaseHealthStore {
        try await openKeyed(allowLocked: false)
    }

    /// Opens the store for `serve`: a PostgreSQL pool that keeps its connections.
    func openForServer() async throws -> DatabaseHealthStore {
        try await openKeyed(allowLocked: false, keepsConnections: true)
    }

    /// The people of a server for many: `--people DIR`, or `--postgres URL` naming no person;
    /// `nil` when the options name one store.
    func manyPeople() throws -> (any PeopleRegistry)? {
        try manyPeople(keepsConnections: false)
    }

    /// The people of a server for many, for `serve`: a PostgreSQL pool that keeps its connections.
    func manyPeopleForServer() throws -> (any PeopleRegistry)? {
        try manyPeople(keepsConnections: true)
    }

    private func manyPeople(keepsConnections: Bool) throws -> (any PeopleRegistry)? {
        guard person == nil else { return nil }
        if let people {
            do { return try SQLitePeople(directory: people) } catch { throw CommandFailure.usage(error.description) }
        }
        guard let postgres else { return nil }
        var url: PostgresStoreURL
        do { url = try PostgresStoreURL(postgres) } catch { throw CommandFailure.usage(error.description) }
        guard url.person == nil else { return nil }
        if url.password == nil, let p = ProcessInfo.processInfo.environment["PGPASSWORD"], !p.isEmpty { url.password = p }
        do { return PostgresPeople(database: try PostgresHealthDatabase(url: url, keepsConnections: keepsConnections)) } catch {
            throw CommandFailure.usage(error.description)
        }
    }

    /// Opens the store; `allowLocked` lets key commands open a locked store; `keepsConnections`
    /// is for a server (``PostgresHealthDatabase/init(url:keepsConnections:)``).
    func openKeyed(allowLocked: Bool, keepsConnections: Bool = false) async throws -> DatabaseHealthStore {
        if people != nil && person == nil { throw CommandFailure.usage("--people DIR needs --person ID (`healthrecords people list --people DIR`)") }
        try await checkRegisteredPerson()
        var credentials = try givenCredentials()
        var fromSession = false
        if credentials == nil, let key = session.dataKey() {
            credentials = key.credentials
            fromSession = true
        }
        let store: DatabaseHealthStore
        do {
            store = try await engineOpen(credentials, keepsConnections: keepsConnections)
        } catch {
            // A stale session (the store was replaced or is plain now) is dropped, not used.
            guard fromSession else { throw Self.failure(error) }
            session.remove()
            do { store = try await engineOpen(nil, keepsConnections: keepsConnections) } catch { throw Self.failure(error) }
        }
        if store.isLocked, !allowLocked { throw CommandFailure.failed(HealthStoreError.storeLocked(path: location).description) }
        return store
    }

    private func engineOpen(_ credentials: StoreCredentials?, keepsConnections: Bool) async throws(HealthStoreError) -> DatabaseHealthStore {
        let url: PostgresStoreURL?
        do { url = try postgresURL() } catch { throw .invalidArgument((error as? CommandFailure)?.message ?? "\(error)") }
        if let url, let person = url.person {
            return try await PostgresHealthStore(
                database: PostgresHealthDatabase(url: url, keepsConnections: keepsConnections), person: person, credentials: credentials)
        }
        return try await SQLiteHealthStore(path: path, credentials: credentials)
    }

    /// With `--person`, the person must be one the registry lists: a mistyped id must not make a
    /// new, empty store.
    private func checkRegisteredPerson() async throws {
        guard let person else { return }
        let registry: any PeopleRegistry
        if let people {
            do { registry = try SQLitePeople(directory: people) } catch { throw CommandFailure.usage(error.description) }
        } else if let url = try postgresURL() {
            do { registry = PostgresPeople(database: try PostgresHealthDatabase(url: url)) } catch { throw CommandFailure.usage(error.description) }
        } else {
            return
        }
        guard try await registry.entry(id: person) != nil else {
            throw CommandFailure.failed("no person \(person) here (see `healthrecords people list`)")
        }
    }

    /// Encrypts the plain store in place.
    func encrypt(_ credentials: StoreCredentials) async throws(HealthStoreError) {
        let url: PostgresStoreURL?
        do { url = try postgresURL() } catch { throw .invalidArgument((error as? CommandFailure)?.message ?? "\(error)") }
        if let url, let person = url.person {
            try await PostgresHealthStore.encrypt(database: PostgresHealthDatabase(url: url), person: person, credentials: credentials)
        } else {
            try await SQLiteHealthStore.encrypt(path: path, credentials: credentials)
        }
    }

    /// Key problems fail the command (exit 1); a store that cannot be opened is exit 2.
    static func failure(_ error: HealthStoreError) -> CommandFailure {
        switch error {
        case .wrongPassphrase, .storeLocked, .notEncrypted, .alreadyEncrypted: return .failed(error.description)
        default: return .usage(error.description)
        }
    }
}
