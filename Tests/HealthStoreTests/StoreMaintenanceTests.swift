import ClinicalRecords
import Crypto
import FHIR
import Foundation
import Synchronization
import Testing
import TestSupport

@testable import HealthStoreCore
@testable import HealthStoreSQLite

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

    /// A value handed to BackgroundRelease is freed on the idle thread, not by the thread that
    /// handed it over; when the idle thread's backlog is full (tests running beside this one
    /// keep every core busy, and idle priority then waits), the caller frees it, once.
    @Test func releasedValuesAreFreedOnAnotherThread() {
        // Where each value was freed: the thread's name and whether it was the releasing thread.
        let freedOn = Mutex<[Int: (name: String, caller: Bool)]>([:])
        final class Tracked: @unchecked Sendable {
            let onFree: @Sendable () -> Void
            init(_ onFree: @escaping @Sendable () -> Void) { self.onFree = onFree }
            deinit { onFree() }
        }
        let caller = pthread_self()
        var taken: [Bool] = []
        for i in 0..<3 {
            let value = [
                Tracked {
                    let here = pthread_equal(pthread_self(), caller) != 0
                    freedOn.withLock { $0[i] = (Thread.current.name ?? "", here) }
                }
            ]
            // Handed over with `consume`, so no temporary of this thread outlives the call.
            taken.append(BackgroundRelease.release(consume value))
        }
        IdleWork.drain()
        let freed = freedOn.withLock { $0 }
        #expect(freed.count == 3)
        for i in 0..<3 {
            if taken[i] {
                #expect(freed[i]?.name == IdleWork.threadName && freed[i]?.caller == false, "value \(i) freed on \(String(describing: freed[i]))")
            } else {
                #expect(freed[i]?.caller == true)
            }
        }
    }

    /// A thread started from a pool thread carries the pool's name until it names itself, and
    /// Foundation's `Thread.name` setter can run before `start()` has stored the handle it
    /// names (then it names nothing): CI once saw the idle thread called "oot.default-qos".
    @Test func aThreadStartedFromAPoolThreadTakesTheIdleName() {
        final class Names: Sendable {
            let seen = Mutex<[String]>([])
        }
        let names = Names()
        // concurrentPerform runs its iterations on the dispatch pool's threads.
        DispatchQueue.concurrentPerform(iterations: 200) { _ in
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                IdleWork.nameCurrentThread(IdleWork.threadName)
                names.seen.withLock { $0.append(Thread.current.name ?? "") }
                done.signal()
            }
            thread.start()
            done.wait()
        }
        let seen = names.seen.withLock { $0 }
        #expect(seen.count == 200)
        // With Foundation's setter in its place, 200 threads showed the pool's name in 2 runs of 3.
        #expect(seen.filter { $0 != IdleWork.threadName } == [])
    }

    /// A commit that leaves a long log does not copy it into the file itself; the copy happens
    /// once the writes pause, while the store stays open, and every record reads back.
    @Test func aLongLogIsMovedIntoTheFileOnceTheWritesPause() async throws {
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
        // idle thread's backlog was full (other tests' imports), the next long commit asks again.
        var commits = 1
        var asked = ContinuousClock.now
        let deadline = ContinuousClock.now + .seconds(90)
        while size() < 6_000_000 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            IdleWork.drain()
            if asked.duration(to: .now) > .seconds(2) {
                commits += 1
                try await f.importJSON("small-\(commits).json", #"{"resourceType":"Observation","id":"s\#(commits)","status":"final","code":{"text":"S"}}"#)
                asked = .now
            }
        }
        #expect(size() >= 6_000_000, "the file holds \(size()) bytes after \(commits) commits")
        #expect(try await f.store.resourceCount(source: "test", resourceTypes: [.observation]) == 2_000 + commits - 1)
        let reopened = try await f.reopen()
        #expect(try await reopened.resourceCount(source: "test", resourceTypes: nil) == 2_000 + commits - 1)
    }

    /// Each long commit pushes the checkpoint back until the writes have paused for the quiet
    /// period: a sync that ends and exits never waits for a checkpoint's fsyncs.
    @Test func theCheckpointWaitsForTheWritesToPause() {
        let quiet = WALCheckpointer.quietPeriod
        let last = ContinuousClock.now
        #expect(WALCheckpointer.remainingQuiet(since: last, now: last) == quiet)
        #expect(WALCheckpointer.remainingQuiet(since: last, now: last + quiet / 5) == quiet - quiet / 5)
        #expect(WALCheckpointer.remainingQuiet(since: last, now: last + quiet) == nil)
        #expect(WALCheckpointer.remainingQuiet(since: last, now: last + quiet * 3) == nil)
    }
}

/// What the log left on disk means for durability and deletion.
@Suite struct LogDurabilityTests {
    /// A provider's tokens are saved in a transaction that fsyncs the log (`synchronous = FULL`
    /// for its commit); other writes keep `NORMAL`.
    @Test func aDurableTransactionCommitsWithAFullSyncAndOthersDoNot() async throws {
        let dir = TemporaryDirectory()
        let database = try SQLiteDatabase(path: dir.path("store.sqlite"), busyTimeout: 5)
        let mode = SQLStatement(.sqlite, "PRAGMA synchronous")
        let during = try await database.durableTransaction { try await $0.row(mode)?.int(0) }
        let after = try await database.transaction { try await $0.row(mode)?.int(0) }
        #expect(during == 2 && after == 1)
        // A failed durable transaction also puts the mode back.
        await #expect(throws: (any Error).self) {
            try await database.durableTransaction { session -> Int in
                try await session.run(SQLStatement(.sqlite, "INSERT INTO no_such_table VALUES (1)"))
                return 0
            }
        }
        #expect(try await database.transaction { try await $0.row(mode)?.int(0) } == 1)
    }

    /// After a deletion the log is emptied; a reader that holds an older snapshot past the
    /// store's patience leaves it for the next deletion (best effort, never an error).
    @Test func aDeletionEmptiesTheLogOnceNoReaderHoldsIt() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path("store.sqlite")
        let database = try SQLiteDatabase(path: path, busyTimeout: 0.2)
        try await database.transaction { session in
            try await session.run(SQLStatement(.sqlite, "CREATE TABLE t (x BLOB)"))
            for _ in 0..<50 { try await session.run(SQLStatement(.sqlite, "INSERT INTO t VALUES (randomblob(4000))")) }
        }
        let walSize = { ((try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size]) as? Int) ?? 0 }
        let reader = try SQLiteConnection(path: path, busyTimeout: 0)
        _ = try reader.rows("BEGIN", [])
        _ = try reader.rows("SELECT count(*) FROM t", [])
        try await database.scrub(vacuum: false)
        #expect(walSize() > 0)
        _ = try reader.rows("COMMIT", [])
        try await database.scrub(vacuum: false)
        #expect(walSize() == 0)
    }

    /// A `TRUNCATE` checkpoint that cannot finish says so (`PRAGMA wal_checkpoint` only puts it
    /// in a row), so a deletion can wait and try again rather than leave old pages in the log.
    @Test func aRefusedTruncateIsReportedNotIgnored() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("store.sqlite")
        let writer = try SQLiteConnection(path: path, busyTimeout: 0)
        try writer.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (x BLOB); INSERT INTO t VALUES (randomblob(4000))")
        let reader = try SQLiteConnection(path: path, busyTimeout: 0)
        _ = try reader.rows("BEGIN", [])
        _ = try reader.rows("SELECT count(*) FROM t", [])
        try writer.execute("INSERT INTO t VALUES (randomblob(4000))")
        #expect(try writer.checkpointTruncate() == false)
        _ = try reader.rows("COMMIT", [])
        #expect(try writer.checkpointTruncate() == true)
        #expect(((try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size]) as? Int) == 0)
    }

    /// A checkpoint's connection never creates the file: after the store is gone and its file
    /// deleted, a late checkpoint leaves nothing behind.
    @Test func aClosedStoresCheckpointerBringsNoFileBack() async throws {
        let dir = TemporaryDirectory()
        let path = dir.path("store.sqlite")
        do {
            let database = try SQLiteDatabase(path: path, busyTimeout: 5)
            try await database.transaction { session in
                try await session.run(SQLStatement(.sqlite, "CREATE TABLE t (x BLOB)"))
                for _ in 0..<1_200 { try await session.run(SQLStatement(.sqlite, "INSERT INTO t VALUES (randomblob(4000))")) }
            }
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try await Task.sleep(for: WALCheckpointer.quietPeriod * 3)
        IdleWork.drain()
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
