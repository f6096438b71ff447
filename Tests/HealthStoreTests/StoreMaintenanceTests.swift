import ClinicalRecords
import Crypto
import FHIR
import Foundation
import Synchronization
import Testing
import TestSupport

@testable import HealthStoreCore

/// What keeps a large import's write short: identity keys made in one pass, the write-ahead
/// log moved into the file beside later work, stored resources freed on another thread.
@Suite struct StoreMaintenanceTests {
    /// Stores made before keys were hashed in one pass still find their records: a key is the
    /// SHA-256 of each part's UTF-8 followed by a zero byte, as it always was.
    @Test func identityKeysAreTheHashOfEachPartAndAZeroByte() {
        let parts = ["provider:ehr", "Observation", "é-1"]
        var reference = SHA256()
        for p in parts {
            reference.update(data: Data(p.utf8))
            reference.update(data: Data([0]))
        }
        #expect(PlainSealer().identityKey(parts) == Data(reference.finalize()))
        // The separator keeps part boundaries apart, for keyed stores too.
        let sealer = AESGCMSealer(dataKey: SymmetricKey(size: .bits256))
        #expect(sealer.identityKey(["ab", "c"]) != sealer.identityKey(["a", "bc"]))
        #expect(sealer.identityKey(parts) == sealer.identityKey(parts))
    }

    /// A value handed to BackgroundRelease is freed on the idle thread, not by the thread that handed it over.
    @Test func releasedValuesAreFreedOnAnotherThread() {
        let freedOn = Mutex<[String]>([])
        final class Tracked: @unchecked Sendable {
            let onFree: @Sendable () -> Void
            init(_ onFree: @escaping @Sendable () -> Void) { self.onFree = onFree }
            deinit { onFree() }
        }
        for _ in 0..<3 {
            BackgroundRelease.release([Tracked { freedOn.withLock { $0.append(Thread.current.name ?? "") } }])
        }
        IdleWork.drain()
        let threads = freedOn.withLock { $0 }
        #expect(threads.count == 3)
        #expect(threads.allSatisfy { $0 == IdleWork.threadName }, "\(threads)")
        #expect(IdleWork.backlog == 0)
    }

    /// A commit that leaves a long log does not copy it into the file itself; the copy happens
    /// beside later work, while the store stays open, and every record reads back.
    @Test func aLongLogIsMovedIntoTheFileWhileTheStoreStaysOpen() async throws {
        let f = try await StoreFixture()
        let padding = String(repeating: "x", count: 3_000)
        var entries: [String] = []
        for i in 0..<2_000 {
            entries.append(#"{"resource":{"resourceType":"Observation","id":"o\#(i)","status":"final","code":{"text":"T \#(i) \#(padding)"}}}"#)
        }
        try await f.importJSON("big.json", #"{"resourceType":"Bundle","type":"collection","entry":[\#(entries.joined(separator: ","))]}"#)
        let file = f.dir.path("store.sqlite")
        let size = { ((try? FileManager.default.attributesOfItem(atPath: file)[.size]) as? Int) ?? 0 }
        // The copy runs at idle priority: on a busy machine, whenever a core is free. When the
        // idle thread's backlog was full (other tests' imports), the next commit asks again.
        var commits = 1
        IdleWork.drain()
        while size() < 6_000_000 && commits < 20 {
            commits += 1
            try await f.importJSON("small-\(commits).json", #"{"resourceType":"Observation","id":"s\#(commits)","status":"final","code":{"text":"S"}}"#)
            IdleWork.drain()
        }
        #expect(size() >= 6_000_000, "the file holds \(size()) bytes after \(commits) commits")
        #expect(try await f.store.resourceCount(source: "test", resourceTypes: [.observation]) == 2_000 + commits - 1)
        let reopened = try await f.reopen()
        #expect(try await reopened.resourceCount(source: "test", resourceTypes: nil) == 2_000 + commits - 1)
    }
}
