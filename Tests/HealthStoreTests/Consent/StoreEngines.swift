import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthStoreCore
import HealthStoreSQLite
import HealthStorePostgres
import TestSupport

/// The engines the engine-independent suites run on: SQLite always, PostgreSQL when
/// `HEALTHRECORDS_POSTGRES_URL` names a server (each store is a new person there, so tests
/// never see each other's data and may run in parallel).
struct StoreEngine: Sendable, CustomStringConvertible {
    let name: String
    /// Opens the store called `key` — a file in the folder, or a person in the test database;
    /// the same key opens the same store again.
    let open: @Sendable (_ dir: TemporaryDirectory, _ key: String, _ clock: HealthClock) async throws -> any HealthStore

    var description: String { name }

    /// A fresh, empty store.
    func make(_ dir: TemporaryDirectory, _ clock: HealthClock) async throws -> any HealthStore {
        try await open(dir, UUID().uuidString, clock)
    }

    static let testKey = StoreCredentials.keyFile(Data(repeating: 7, count: 32))

    static let sqlite = StoreEngine(name: "sqlite") { dir, key, clock in
        try await SQLiteHealthStore(path: dir.path("store-\(key).sqlite"), clock: clock)
    }

    static let sqliteEncrypted = StoreEngine(name: "sqlite-encrypted") { dir, key, clock in
        try await SQLiteHealthStore(path: dir.path("store-\(key).sqlite"), clock: clock, credentials: testKey, kdf: .testing)
    }

    static let postgres = StoreEngine(name: "postgres") { _, key, clock in
        try await PostgresHealthStore(database: try PostgresTestDatabase.shared(), person: "test-\(key)", clock: clock)
    }

    static let postgresEncrypted = StoreEngine(name: "postgres-encrypted") { _, key, clock in
        try await PostgresHealthStore(
            database: try PostgresTestDatabase.shared(), person: "test-\(key)", clock: clock, credentials: testKey, kdf: .testing)
    }

    /// Every engine, plain and encrypted.
    static let all: [StoreEngine] = [.sqlite, .sqliteEncrypted] + (PostgresTestDatabase.isConfigured ? [.postgres, .postgresEncrypted] : [])

    /// One plain store per engine, for the heavier suites.
    static let plain: [StoreEngine] = [.sqlite] + (PostgresTestDatabase.isConfigured ? [.postgres] : [])
}

/// A fresh store of one engine with a movable clock, a consent manager and import helpers.
final class ConsentWorld: Sendable {
    let dir = TemporaryDirectory()
    let store: any HealthStore
    let consent: ConsentManager
    private let time = MovableTime()

    init(_ engine: StoreEngine) async throws {
        let time = self.time
        store = try await engine.make(dir, HealthClock { time.now })
        consent = ConsentManager(store: store)
    }

    func advance(_ seconds: TimeInterval = 60) { time.advance(seconds) }

    /// Imports resources as one file of a source.
    func importResources(_ resources: [String], source: String = "clinic") async throws {
        let path = try dir.write("in/\(UUID().uuidString).json", Make.bundle(resources))
        let report = await RecordImporter(store: store, options: .init(source: RecordSource(identifier: source))).importPaths([path])
        // A store error fails the one test, not the whole run.
        guard report.failed == 0 else { throw ImportFailed(errors: report.files.compactMap(\.error).map { "\($0)" }) }
        advance()
    }

    /// The files an import could not store, with why.
    struct ImportFailed: Error, CustomStringConvertible {
        let errors: [String]
        var description: String { "the import failed: " + errors.joined(separator: "; ") }
    }
}

extension Make {
    /// A resource that classifies as `type`, with a display name that names it.
    static func record(_ type: ClinicalType, id: String, text: String? = nil) -> String {
        let name = text ?? "Name of \(id)"
        switch type {
        case .allergy: return #"{"resourceType":"AllergyIntolerance","id":"\#(id)","code":{"text":"\#(name)"},"recordedDate":"2020-01-01"}"#
        case .condition: return #"{"resourceType":"Condition","id":"\#(id)","code":{"text":"\#(name)"},"onsetDateTime":"2020-02-01"}"#
        case .immunization:
            return #"{"resourceType":"Immunization","id":"\#(id)","status":"completed","vaccineCode":{"text":"\#(name)"},"occurrenceDateTime":"2021-01-02"}"#
        case .labResult:
            return #"{"resourceType":"Observation","id":"\#(id)","category":[{"coding":[{"code":"laboratory"}]}],"code":{"text":"\#(name)"},"effectiveDateTime":"2020-03-01"}"#
        case .medication:
            return #"{"resourceType":"MedicationStatement","id":"\#(id)","status":"active","medicationCodeableConcept":{"text":"\#(name)"},"effectiveDateTime":"2020-04-01"}"#
        case .procedure: return #"{"resourceType":"Procedure","id":"\#(id)","status":"completed","code":{"text":"\#(name)"},"performedDateTime":"2020-05-01"}"#
        case .vitalSign:
            return #"{"resourceType":"Observation","id":"\#(id)","category":[{"coding":[{"code":"vital-signs"}]}],"code":{"text":"\#(name)"},"effectiveDateTime":"2020-06-01"}"#
        case .coverage: return #"{"resourceType":"Coverage","id":"\#(id)","status":"active","type":{"text":"\#(name)"}}"#
        case .clinicalNote: return #"{"resourceType":"DocumentReference","id":"\#(id)","status":"current","type":{"text":"\#(name)"},"date":"2020-07-01T00:00:00Z"}"#
        }
    }
}
