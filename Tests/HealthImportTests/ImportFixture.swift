import ClinicalRecords
import Foundation
import HealthImport
import HealthStoreCore
import HealthStorePostgres
import HealthStoreSQLite
import TestSupport

/// The engines the importer's suites run on: SQLite always, PostgreSQL when
/// `HEALTHRECORDS_POSTGRES_URL` names a server (each fixture is a new person there).
enum ImportEngine: String, Sendable, CustomStringConvertible {
    case sqlite, postgres

    static let available: [ImportEngine] = [.sqlite] + (serverURL == nil ? [] : [.postgres])

    private static let serverURL = ProcessInfo.processInfo.environment["HEALTHRECORDS_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// One pool for every test; a misspelt URL fails the PostgreSQL tests loudly.
    private static let database: Result<PostgresHealthDatabase, HealthStoreError>? = serverURL.map { text in
        Result { () throws(HealthStoreError) in
            var url = try PostgresStoreURL(text)
            url.person = nil
            return try PostgresHealthDatabase(url: url)
        }
    }

    var description: String { rawValue }

    /// A fresh, empty store.
    func open(in dir: TemporaryDirectory) async throws -> any HealthStore {
        switch self {
        case .sqlite: return try await SQLiteHealthStore(path: dir.path("store.sqlite"))
        case .postgres:
            guard let database = Self.database else { throw HealthStoreError.invalidArgument("HEALTHRECORDS_POSTGRES_URL is not set") }
            return try await PostgresHealthStore(database: try database.get(), person: "import-\(UUID().uuidString)")
        }
    }
}

/// A fresh store of one engine and a folder for the files to import.
final class ImportFixture: Sendable {
    let dir = TemporaryDirectory()
    let store: any HealthStore

    init(_ engine: ImportEngine) async throws {
        store = try await engine.open(in: dir)
    }

    func importer(source: String? = nil) -> RecordImporter {
        RecordImporter(store: store, options: RecordImporter.Options(source: source.map { RecordSource(identifier: $0) }))
    }

    /// Imports JSON text as one file named `name`.
    func importJSON(_ name: String, _ text: String, source: String = "test") async throws -> FileImportResult {
        let path = try dir.write("in/" + name, text)
        return await importer(source: source).importPaths([path]).files[0]
    }
}
