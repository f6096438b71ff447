import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthStoreCore
import HealthStoreSQLite
import Synchronization
import TestSupport

/// A store of one engine (a file in a temporary folder, or a new person in the test
/// database), with a clock tests can move.
final class StoreFixture: Sendable {
    let dir = TemporaryDirectory()
    let store: any HealthStore
    /// Opens the same store again as another store object (as another process would).
    let reopen: @Sendable () async throws -> any HealthStore
    private let time = MovableTime()

    /// A SQLite store at `store.sqlite` in the folder, for tests of the file itself.
    init(busyTimeout: TimeInterval = 10, sealer: any RecordSealer = PlainSealer()) async throws {
        let time = self.time
        let path = dir.path("store.sqlite")
        store = try await SQLiteHealthStore(path: path, clock: HealthClock { time.now }, sealer: sealer, busyTimeout: busyTimeout)
        reopen = { try await SQLiteHealthStore(path: path) }
    }

    /// A fresh store of an engine.
    init(_ engine: StoreEngine) async throws {
        let time = self.time
        let key = UUID().uuidString
        let dir = self.dir
        store = try await engine.open(dir, key, HealthClock { time.now })
        reopen = { try await engine.open(dir, key, .system) }
    }

    var now: Date { time.now }

    func advance(_ seconds: TimeInterval) { time.advance(seconds) }

    func importer(source: String? = nil) -> RecordImporter {
        RecordImporter(store: store, options: RecordImporter.Options(source: source.map { RecordSource(identifier: $0) }))
    }

    /// Imports JSON text as one file named `name`.
    @discardableResult
    func importJSON(_ name: String, _ text: String, source: String = "test") async throws -> FileImportResult {
        let path = try dir.write("in/" + name, text)
        let report = await importer(source: source).importPaths([path])
        return report.files[0]
    }
}

/// A time that tests move forward by hand.
final class MovableTime: Sendable {
    private let value = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
    var now: Date { value.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { value.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
