import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthStoreCore
import HealthStoreSQLite
import Testing
import Synchronization
import TestSupport

@Suite struct AnchoredQueryTests {
    @Test(arguments: StoreEngine.all) func returnsOnlyWhatChangedSinceAnAnchor(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        try await f.importJSON("a.json", Make.bundle([Make.observation("o1"), Make.observation("o2"), Make.immunization("i1")]))
        let all = try await f.store.changes(AnchoredQuery(type: .labResult, anchor: nil))
        #expect(all.added.map(\.fhirResource.identifier) == ["o1", "o2"])
        #expect(all.deleted.isEmpty)
        let before = all.anchor

        try await f.importJSON("b.json", Make.observation("o3"))
        #expect(try await f.store.delete(source: "test", resourceType: .observation, identifier: "o1") == 1)
        let since = try await f.store.changes(AnchoredQuery(type: .labResult, anchor: before))
        #expect(since.added.map(\.fhirResource.identifier) == ["o3"])
        #expect(since.deleted.map(\.identity) == [RecordIdentity(source: "test", resourceType: .observation, identifier: "o1")])
        #expect(since.deleted[0].clinicalType == .labResult)
        #expect(since.anchor > before)

        let nothing = try await f.store.changes(AnchoredQuery(type: .labResult, anchor: since.anchor))
        #expect(nothing.added.isEmpty && nothing.deleted.isEmpty)
        #expect(nothing.anchor == since.anchor)
        // Other types are not reported.
        let immunizations = try await f.store.changes(AnchoredQuery(type: .immunization, anchor: before))
        #expect(immunizations.added.isEmpty && immunizations.deleted.isEmpty)
    }

    @Test(arguments: StoreEngine.all) func pagesThroughEveryChangeExactlyOnce(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        try await f.importJSON("a.json", Make.bundle((1...7).map { Make.observation("o\($0)") }))
        _ = try await f.store.delete(source: "test", resourceType: .observation, identifier: "o2")
        try await f.importJSON("b.json", Make.observation("o8"))
        _ = try await f.store.delete(source: "test", resourceType: .observation, identifier: "o5")
        var anchor: QueryAnchor? = nil
        var added: [String] = []
        var deleted: [String] = []
        var pages = 0
        while true {
            let page = try await f.store.changes(AnchoredQuery(type: .labResult, anchor: anchor, limit: 3))
            pages += 1
            added += page.added.map(\.fhirResource.identifier)
            deleted += page.deleted.map(\.identity.identifier)
            #expect(page.added.count + page.deleted.count <= 3)
            if page.added.isEmpty && page.deleted.isEmpty { break }
            anchor = page.anchor
        }
        #expect(added == ["o1", "o3", "o4", "o6", "o7", "o8"])
        #expect(deleted == ["o2", "o5"])
        #expect(pages == 4)
    }

    @Test(arguments: StoreEngine.all) func updatedRecordsComeBackAsAdded(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        try await f.importJSON("a.json", Make.observation("o1", value: "1.0"))
        let a = try await f.store.currentAnchor()
        try await f.importJSON("a.json", Make.observation("o1", value: "1.00"))
        let changes = try await f.store.changes(AnchoredQuery(type: .labResult, anchor: a))
        #expect(changes.added.map(\.fhirResource.identifier) == ["o1"])
    }

    @Test(arguments: StoreEngine.all) func aRecordAddedAgainAfterDeletionIsNotAlsoDeleted(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        try await f.importJSON("a.json", Make.observation("o1"))
        _ = try await f.store.delete(source: "test", resourceType: nil, identifier: nil)
        try await f.importJSON("a.json", Make.observation("o1"))
        let changes = try await f.store.changes(AnchoredQuery(type: nil, anchor: nil))
        #expect(changes.added.count == 1)
        #expect(changes.deleted.isEmpty)
    }

    @Test(arguments: StoreEngine.all) func deletingASourceRemovesEverythingFromIt(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        try await f.importJSON("a.json", Make.bundle([Make.observation("o1"), #"{"resourceType":"Patient","id":"p"}"#]), source: "s1")
        try await f.importJSON("b.json", Make.observation("o2"), source: "s2")
        #expect(try await f.store.delete(source: "s1", resourceType: nil, identifier: nil) == 2)
        #expect(try await f.store.records(RecordQuery(type: nil)).map(\.source.identifier) == ["s2"])
        #expect(try await f.store.contextResources(ofType: .patient, source: nil).isEmpty)
        #expect(try await f.store.delete(source: "nobody", resourceType: nil, identifier: nil) == 0)
    }
}

@Suite struct ObserverTests {
    @Test(arguments: StoreEngine.all) func announcesChangesForWatchedTypesOnly(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        let start = try await f.store.currentAnchor()
        let stream = f.store.observe(types: [.immunization], after: start, pollInterval: .seconds(30))
        try await f.importJSON("a.json", Make.observation("o1"))
        let afterObservation = try await f.store.currentAnchor()
        try await f.importJSON("b.json", Make.immunization("i1"))
        let change = try await firstElement(of: stream)
        #expect(change.types == [.immunization])
        #expect(change.anchor > afterObservation)
        #expect(change.anchor == (try await f.store.currentAnchor()))
    }

    @Test(arguments: StoreEngine.all) func seesChangesMadeByAnotherStoreObject(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        let other = try await f.reopen()
        let stream = f.store.observe(types: nil, after: try await f.store.currentAnchor(), pollInterval: .milliseconds(50))
        let path = try f.dir.write("in/x.json", Make.observation("o1"))
        _ = await RecordImporter(store: other).importPaths([path])
        let change = try await firstElement(of: stream)
        #expect(change.types == [.labResult])
    }
}

@Suite struct ConcurrencyTests {
    /// A producer that holds the write transaction open until the test releases it: it is
    /// pulled only once `BEGIN IMMEDIATE` holds the lock, and says so.
    final class HoldingProducer: ResourceProducer, @unchecked Sendable {
        var done = false
        let started = Mutex(false)
        let release = DispatchSemaphore(value: 0)
        func next() throws -> ClassifiedResource? {
            if done { return nil }
            done = true
            started.withLock { $0 = true }
            _ = release.wait(timeout: .now() + 60)
            return try RecordBuilder().classify(try FHIRResource(data: Data(Make.observation("slow").utf8)))
        }
    }

    /// The lock is held for as long as the test needs (not a fixed time a busy machine could
    /// outlast), and the second writer starts only once it is held.
    @Test func aSecondWriterGetsStoreBusyAfterItsTimeout() async throws {
        let f = try await StoreFixture()
        let second = try await SQLiteHealthStore(path: f.dir.path("store.sqlite"), busyTimeout: 0.2)
        let producer = HoldingProducer()
        let slow = Task { try await f.store.importResources(source: RecordSource(identifier: "a"), from: producer) }
        // A minute at most: a writer that never starts fails the test rather than hanging it.
        let deadline = ContinuousClock.now + .seconds(60)
        while !producer.started.withLock({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        guard producer.started.withLock({ $0 }) else {
            producer.release.signal()
            Issue.record("the first import did not start within a minute")
            return
        }
        await #expect(throws: HealthStoreError.storeBusy(path: f.dir.path("store.sqlite"))) {
            try await second.importResources(source: RecordSource(identifier: "b"), from: ResourceList([]))
        }
        producer.release.signal()
        #expect(try await slow.value.inserted == 1)
    }
}

struct TimedOut: Error {}

/// The first element of a stream, or a failure after `seconds` (a test must never hang).
func firstElement<T: Sendable>(of stream: AsyncStream<T>, seconds: Double = 10) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw TimedOut() }
        return value
    }
}
