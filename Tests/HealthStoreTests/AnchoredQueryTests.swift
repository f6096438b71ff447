import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthStoreCore
@testable import HealthStoreSQLite
import Testing
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
    /// The write lock is held by a connection of the test's own (`BEGIN IMMEDIATE`) for as long
    /// as the test needs: not by an import whose producer blocks a thread of the shared dispatch
    /// pool (two threads on this machine; other tests' work waits for them), nor for a fixed time
    /// a busy machine could outlast.
    @Test func aSecondWriterGetsStoreBusyAfterItsTimeout() async throws {
        let f = try await StoreFixture()
        let path = f.dir.path("store.sqlite")
        let holder = try SQLiteConnection(path: path, busyTimeout: 5)
        try holder.execute("BEGIN IMMEDIATE")
        let second = try await SQLiteHealthStore(path: path, busyTimeout: 0.2)
        await #expect(throws: HealthStoreError.storeBusy(path: path)) {
            try await second.importResources(source: RecordSource(identifier: "b"), from: ResourceList([]))
        }
        try holder.execute("COMMIT")
        // Once the lock is free, the same writer gets in.
        _ = try await second.importResources(source: RecordSource(identifier: "b"), from: ResourceList([]))
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
