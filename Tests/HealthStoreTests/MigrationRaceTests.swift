import Foundation
import HealthStoreCore
import HealthStoreSQLite
import Testing
import TestSupport

/// Found by the concurrent-import crash test: two processes creating one new store both ran the
/// migrations and the second failed with "table source already exists".
@Suite struct MigrationRaceTests {
    @Test func storesOpenedAtOnceOnANewFileMigrateOnce() async throws {
        for _ in 0..<5 {
            let dir = TemporaryDirectory()
            let path = dir.path("store.sqlite")
            let results = await withTaskGroup(of: String?.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        do { _ = try await SQLiteHealthStore(path: path); return nil } catch { return "\(error)" }
                    }
                }
                var errors: [String] = []
                for await e in group { if let e { errors.append(e) } }
                return errors
            }
            #expect(results.isEmpty, "\(results)")
        }
    }
}
