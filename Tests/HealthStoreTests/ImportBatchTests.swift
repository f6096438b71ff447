import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import Testing
import TestSupport

/// An import asks once whether its source holds rows or tombstones and skips the per-batch
/// lookups when it does not: what lands must be the same as when every batch looks.
@Suite struct ImportBatchTests {
    static func observation(_ id: String, value: String) throws -> ClassifiedResource {
        try RecordBuilder().classify(try FHIRResource(data: Data(Make.observation(id, value: value).utf8)))
    }

    /// A fresh source, and a resource that comes again hundreds of resources later (in another
    /// batch): the second copy updates the first, as it would in a source that held rows.
    @Test(arguments: StoreEngine.all) func aRepeatInALaterBatchOfAFreshSourceUpdatesTheFirst(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        var items = try (0..<300).map { try Self.observation("o\($0)", value: "1.0") }
        items.append(try Self.observation("o0", value: "2.0"))
        items.append(try Self.observation("o1", value: "1.0"))
        let outcome = try await f.store.importResources(source: RecordSource(identifier: "lab"), from: ResourceList(items))
        #expect(outcome.inserted == 300 && outcome.updated == 1 && outcome.unchanged == 1)
        let stored = try await f.store.records(RecordQuery(type: .labResult))
        #expect(stored.count == 300)
        let first = try #require(stored.first { $0.fhirResource.identifier == "o0" })
        #expect(String(decoding: first.fhirResource.data, as: UTF8.self).contains(#""value":2.0"#))
        // A second import of the same resources: the source now holds rows, nothing is new.
        let again = try await f.store.importResources(source: RecordSource(identifier: "lab"), from: ResourceList(Array(items.prefix(300))))
        #expect(again.inserted == 0 && again.updated == 1 && again.unchanged == 299)
    }

    /// A source that still holds rows and has a tombstone: the deleted record that comes back
    /// in a large import loses its tombstone, so a reader is not told it is both new and gone.
    @Test(arguments: StoreEngine.all) func aRecordComingBackToASourceWithTombstonesIsNotAlsoDeleted(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        let source = RecordSource(identifier: "lab")
        _ = try await f.store.importResources(source: source, from: ResourceList([try Self.observation("kept", value: "1.0"), try Self.observation("gone", value: "1.0")]))
        #expect(try await f.store.delete(source: "lab", resourceType: .observation, identifier: "gone") == 1)
        let anchor = try await f.store.currentAnchor()
        // Another source's import, with no tombstones of its own, leaves lab's tombstone alone.
        _ = try await f.store.importResources(source: RecordSource(identifier: "other"), from: ResourceList([try Self.observation("gone", value: "1.0")]))
        #expect(try await f.store.changes(AnchoredQuery(type: nil, anchor: nil)).deleted.map(\.identity.identifier) == ["gone"])
        var items = try (0..<200).map { try Self.observation("n\($0)", value: "1.0") }
        items.append(try Self.observation("gone", value: "3.0"))
        _ = try await f.store.importResources(source: source, from: ResourceList(items))
        let changes = try await f.store.changes(AnchoredQuery(type: nil, anchor: anchor))
        #expect(changes.deleted.isEmpty)
        #expect(changes.added.contains { $0.fhirResource.identifier == "gone" && $0.source.identifier == "lab" })
    }
}
