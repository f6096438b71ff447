import ClinicalRecords
import FHIR
import Foundation
import GRDB
import HealthImport
import HealthStoreCore
import HealthStoreSQLite
import HealthStorePostgres
import PostgresNIO
import Testing
import TestSupport

/// Stores made before consent categories existed get one for every row: from SQL where the
/// resource type decides, and — for non-clinical Observations, whose category is inside the
/// (possibly sealed) bytes — when the store is first opened with its key. Until then such a row
/// matches no grant.
@Suite struct CategoryMigrationTests {
    static let resources = CategoryMatrixTests.resources(suffix: "m")

    static func expectCategories(_ store: any HealthStore) async throws {
        for (category, type, id, _) in resources {
            let stored = try await store.resource(RecordIdentity(source: "clinic", resourceType: type, identifier: id))
            #expect(stored?.category == category, "\(id)")
        }
    }

    /// Undoes `v7-consent-categories` (and the indexes over its column) in a SQLite file, as a
    /// store of the previous version.
    static func downgradeSQLite(_ path: String) throws {
        let db = try DatabaseQueue(path: path)
        try db.write { db in
            try db.execute(sql: """
                DROP INDEX resource_by_category_page;
                DROP INDEX resource_by_category_clinical;
                DROP INDEX resource_by_category_window;
                ALTER TABLE resource DROP COLUMN category;
                ALTER TABLE app DROP COLUMN access_revision;
                DROP TABLE anchor_secret;
                DELETE FROM grdb_migrations WHERE identifier IN ('v7-consent-categories', 'v12-category-clinical-date-index', 'v17-category-search-indexes');
                """)
        }
        try db.close()
    }

    @Test(arguments: [false, true])
    func aSQLiteStoreFromBeforeCategoriesGetsThemOnOpen(encrypted: Bool) async throws {
        let dir = TemporaryDirectory()
        let path = dir.path("store.sqlite")
        let key = StoreCredentials.keyFile(Data(repeating: 9, count: 32))
        do {
            let store = try await SQLiteHealthStore(path: path, credentials: encrypted ? key : nil, kdf: .testing)
            let file = try dir.write("in.json", Make.bundle(Self.resources.map(\.3)))
            let report = await RecordImporter(store: store, options: .init(source: RecordSource(identifier: "clinic"))).importPaths([file])
            #expect(report.failed == 0)
        }
        try Self.downgradeSQLite(path)
        if encrypted {
            // Opened without its key: the migration runs, and the Observations wait, unreadable to anyone.
            let locked = try await SQLiteHealthStore(path: path)
            #expect(locked.isLocked)
            let raw = try DatabaseQueue(path: path)
            let pending = try await raw.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM resource WHERE category = 'unclassified'") }
            #expect(pending == 2)
            try raw.close()
        }
        let store = try await SQLiteHealthStore(path: path, credentials: encrypted ? key : nil, kdf: .testing)
        try await Self.expectCategories(store)
    }

    @Test func aPostgresDatabaseFromBeforeCategoriesGetsThem() async throws {
        guard PostgresTestDatabase.isConfigured else { return }
        let url = try await PostgresTestDatabase.makeScratchDatabase()
        do {
            let database = try PostgresHealthDatabase(url: url)
            let store = try await PostgresHealthStore(database: database, person: "before")
            let dir = TemporaryDirectory()
            let file = try dir.write("in.json", Make.bundle(Self.resources.map(\.3)))
            #expect(await RecordImporter(store: store, options: .init(source: RecordSource(identifier: "clinic"))).importPaths([file]).failed == 0)
            await database.shutdown()
            let config = PostgresConnection.Configuration(
                host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: .disable)
            let connection = try await PostgresConnection.connect(configuration: config, id: 3, logger: PostgresTestDatabase.logger)
            for sql in [
                "DROP INDEX resource_by_category_page", "DROP INDEX resource_by_category_clinical", "ALTER TABLE resource DROP COLUMN category", "ALTER TABLE app DROP COLUMN access_revision",
                "DROP TABLE anchor_secret", "DELETE FROM schema_migrations WHERE name IN ('v6-consent-categories', 'v11-category-clinical-date-index', 'v19-category-search-indexes')",
            ] {
                try await connection.query(PostgresQuery(unsafeSQL: sql), logger: PostgresTestDatabase.logger)
            }
            try await connection.close()
            let later = try PostgresHealthDatabase(url: url)
            let reopened = try await PostgresHealthStore(database: later, person: "before")
            try await Self.expectCategories(reopened)
            await later.shutdown()
        }
        try await PostgresTestDatabase.drop(url)
    }
}
