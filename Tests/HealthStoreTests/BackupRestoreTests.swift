import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import HealthStoreSQLite
import Synchronization
import Testing
import TestSupport

/// Backup while another task writes, restore: the file opens without repair and holds every
/// record committed before the backup began; refusals leave the store alone; an encrypted
/// store's backup stays encrypted.
@Suite struct BackupRestoreTests {
    /// A value tasks share.
    final class SharedBox<T: Sendable>: Sendable {
        private let value: Mutex<T>
        init(_ v: T) { value = Mutex(v) }
        func withLock<R: Sendable>(_ body: (inout sending T) -> sending R) -> R { value.withLock(body) }
    }

    static func observation(_ id: String, marker: String = "Glucose") throws -> ClassifiedResource {
        let json = #"{"resourceType":"Observation","id":"\#(id)","status":"final","code":{"text":"\#(marker)"},"valueQuantity":{"value":5.4,"unit":"mmol/L"},"effectiveDateTime":"2024-05-01"}"#
        return try RecordBuilder().classify(try FHIRResource(data: Data(json.utf8)))
    }

    static func write(_ store: any HealthStore, _ id: String, marker: String = "Glucose") async throws {
        _ = try await store.importResources(source: RecordSource(identifier: "lab"), from: ResourceList([try observation(id, marker: marker)]))
    }

    static func ids(_ store: any HealthStore) async throws -> Set<String> {
        Set(try await store.resources(ResourceQuery(resourceTypes: nil), visible: nil, countingTotal: false).resources.map(\.stored.resource.identifier))
    }

    @Test func backupWhileWritingThenRestoreHoldsEveryCommittedRecord() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path("store.sqlite")
        let store = try await SQLiteHealthStore(path: path)
        for i in 0..<200 { try await Self.write(store, "before-\(i)") }
        let committed = SharedBox<[String]>([])
        let stop = SharedBox<Bool>(false)
        // A writer in another task, as the server would be, committing one record at a time.
        let writer = Task {
            var i = 0
            while !stop.withLock({ $0 }) {
                try await Self.write(store, "during-\(i)")
                committed.withLock { $0.append("during-\(i)") }
                i += 1
            }
            return i
        }
        while committed.withLock({ $0.count }) < 20 { try await Task.sleep(for: .milliseconds(5)) }
        let committedBefore = committed.withLock { Set($0) }
        let backup = dir.path("backup.sqlite")
        try await SQLiteBackup.backup(storePath: path, to: backup)
        let afterBackup = committed.withLock { $0.count }
        try await Task.sleep(for: .milliseconds(50))
        stop.withLock { $0 = true }
        let written = try await writer.value
        #expect(written > afterBackup || written >= committedBefore.count, "the writer went on during the backup")

        #expect(try await SQLiteBackup.integrityCheck(path: backup) == ["ok"])
        let target = dir.path("restored/store.sqlite")
        _ = try await SQLiteBackup.restore(from: backup, to: target, credentials: nil, force: false)
        #expect(try await SQLiteBackup.integrityCheck(path: target) == ["ok"])
        let restored = try await Self.ids(try await SQLiteHealthStore(path: target))
        for i in 0..<200 { #expect(restored.contains("before-\(i)")) }
        #expect(committedBefore.isSubset(of: restored), "every record committed before the backup began is in it")
        // What the backup holds is a prefix of the writer's commits: a snapshot, not a mix.
        let during = committed.withLock { $0 }
        let inBackup = during.filter(restored.contains)
        #expect(inBackup == Array(during.prefix(inBackup.count)))
    }

    @Test func restoreRefusesToOverwriteWithoutForceAndReplacesWithIt() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path("store.sqlite")
        let store = try await SQLiteHealthStore(path: path)
        try await Self.write(store, "kept")
        let backup = dir.path("backup.sqlite")
        try await SQLiteBackup.backup(storePath: path, to: backup)
        await #expect(throws: BackupError.outputExists(path: backup)) { try await SQLiteBackup.backup(storePath: path, to: backup) }
        try await Self.write(store, "later")

        await #expect(throws: BackupError.storeExists(path: path)) {
            _ = try await SQLiteBackup.restore(from: backup, to: path, credentials: nil, force: false)
        }
        #expect(try await Self.ids(try await SQLiteHealthStore(path: path)) == ["kept", "later"], "a refused restore leaves the store alone")

        _ = try await SQLiteBackup.restore(from: backup, to: path, credentials: nil, force: true)
        #expect(try await Self.ids(try await SQLiteHealthStore(path: path)) == ["kept"])
        #expect(try await SQLiteBackup.integrityCheck(path: path) == ["ok"])
    }

    @Test func restoreRefusesWhatIsNotASoundStore() async throws {
        let dir = TemporaryDirectory()
        let junk = try dir.write("junk.sqlite", "not a database at all, just text that is long enough")
        await #expect(throws: BackupError.notADatabase(path: junk)) {
            _ = try await SQLiteBackup.restore(from: junk, to: dir.path("store.sqlite"), credentials: nil, force: false)
        }
        // A database with a damaged page: SQLite's own check finds it.
        let path = dir.path("store.sqlite")
        let store = try await SQLiteHealthStore(path: path)
        for i in 0..<300 { try await Self.write(store, "r\(i)") }
        let backup = dir.path("backup.sqlite")
        try await SQLiteBackup.backup(storePath: path, to: backup)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: backup)))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        // Every b-tree page's header after the schema page: page types no reader knows.
        for page in 1..<(bytes.count / pageSize) { for i in 0..<8 { bytes[page * pageSize + i] = 0xA5 } }
        try Data(bytes).write(to: URL(fileURLWithPath: backup))
        let target = dir.path("target/store.sqlite")
        await #expect(throws: BackupError.self) { _ = try await SQLiteBackup.restore(from: backup, to: target, credentials: nil, force: false) }
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func anEncryptedStoresBackupStaysEncryptedAndNeedsItsKey() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path("store.sqlite")
        let right = StoreCredentials.passphrase("correct horse battery staple")
        let store = try await SQLiteHealthStore(path: path, credentials: right, kdf: .testing)
        let marker = "Zanzibar-Plaintext-Marker"
        try await Self.write(store, "secret-1", marker: marker)
        _ = try await store.saveSamples([
            try QuantitySample(type: .bloodGlucose, value: "5.4", unit: "mmol/L", startDate: Date(timeIntervalSince1970: 1_700_000_000), source: RecordSource(identifier: "Meter-\(marker)"))
        ])
        let backup = dir.path("backup.sqlite")
        try await SQLiteBackup.backup(storePath: path, to: backup)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: backup))
        for text in [marker, "secret-1", "mmol/L"] { #expect(bytes.range(of: Data(text.utf8)) == nil, "\(text) is sealed in the backup") }
        let mode = try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int
        #expect(mode.map { $0 & 0o077 } == 0, "the backup is owner-only")

        let target = dir.path("restored.sqlite")
        await #expect(throws: BackupError.wrongKey(path: backup)) {
            _ = try await SQLiteBackup.restore(from: backup, to: target, credentials: .passphrase("wrong"), force: false)
        }
        await #expect(throws: BackupError.locked(path: backup)) {
            _ = try await SQLiteBackup.restore(from: backup, to: target, credentials: nil, force: false)
        }
        #expect(!FileManager.default.fileExists(atPath: target))
        let summary = try await SQLiteBackup.restore(from: backup, to: target, credentials: right, force: false)
        #expect(summary.encrypted)
        let reopened = try await SQLiteHealthStore(path: target, credentials: right)
        #expect(try await Self.ids(reopened) == ["secret-1"])
        #expect(try await SQLiteHealthStore(path: target).isLocked)
    }
}
