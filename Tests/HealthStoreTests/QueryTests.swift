import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import Testing
import TestSupport

@Suite struct QueryTests {
    func seeded(_ engine: StoreEngine) async throws -> StoreFixture {
        let f = try await StoreFixture(engine)
        try await f.importJSON("a.json", Make.bundle([
            Make.observation("o1", date: "2019-05-01"), Make.observation("o2", date: "2020-06-01"),
            Make.observation("v1", loinc: "8867-4", value: "72", date: "2020-07-01", category: "vital-signs"),
            Make.immunization("i1", date: "2021-01-02"),
        ]), source: "clinic-a")
        f.advance(60)
        try await f.importJSON("b.json", Make.bundle([Make.observation("o3", date: "2018-01-01"), Make.immunization("i2", cvx: "94", date: "2015")]), source: "clinic-b")
        return f
    }

    @Test(arguments: StoreEngine.all) func queriesByTypeWithSortAndLimit(engine: StoreEngine) async throws {
        let f = try await seeded(engine)
        let labs = try await f.store.records(RecordQuery(type: .labResult))
        #expect(labs.map(\.fhirResource.identifier) == ["o1", "o2", "o3"])
        let byClinical = try await f.store.records(RecordQuery(type: .labResult, sort: RecordSort(.clinical)))
        #expect(byClinical.map(\.fhirResource.identifier) == ["o3", "o1", "o2"])
        let newest = try await f.store.records(RecordQuery(type: .labResult, limit: 1, sort: RecordSort(.clinical, ascending: false)))
        #expect(newest.map(\.fhirResource.identifier) == ["o2"])
        #expect(try await f.store.records(RecordQuery(type: .vitalSign)).map(\.displayName) == ["Obs v1"])
        #expect(try await f.store.count(RecordQuery(type: nil)) == 6)
    }

    @Test(arguments: StoreEngine.all) func filtersByPredicatesCombinedWithAnd(engine: StoreEngine) async throws {
        let f = try await seeded(engine)
        let bySource = try await f.store.records(RecordQuery(type: .labResult, predicate: .source("clinic-b")))
        #expect(bySource.map(\.fhirResource.identifier) == ["o3"])
        let identity = try await f.store.records(RecordQuery(type: .labResult, predicate: .identity(source: "clinic-a", resourceType: .observation, identifier: "o2")))
        #expect(identity.count == 1 && identity[0].clinicalDate?.text == "2020-06-01")
        let wrongSource = try await f.store.records(RecordQuery(type: .labResult, predicate: .identity(source: "clinic-b", resourceType: .observation, identifier: "o2")))
        #expect(wrongSource.isEmpty)
        let dated = try await f.store.records(RecordQuery(
            type: .labResult, predicate: .and([.clinicalDate(from: FHIRDate("2019")!.date, to: FHIRDate("2020-12")!.date), .fhirResourceType(.observation)])))
        #expect(dated.map(\.fhirResource.identifier) == ["o1", "o2"])
        let added = try await f.store.records(RecordQuery(type: nil, predicate: .addedDate(from: f.now, to: nil)))
        #expect(Set(added.map(\.fhirResource.identifier)) == ["o3", "i2"])
        #expect(try await f.store.records(RecordQuery(type: .medication, predicate: .fhirResourceType(.observation))).isEmpty)
    }

    @Test(arguments: StoreEngine.all) func rejectsNegativeLimits(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        await #expect(throws: HealthStoreError.invalidArgument("limit must not be negative")) {
            try await f.store.records(RecordQuery(type: nil, limit: -1))
        }
    }

    @Test(arguments: StoreEngine.all) func updatesChangedBytesAndKeepsUnchanged(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        let first = try await f.importJSON("a.json", Make.observation("o1", value: "5.4"))
        #expect(first.outcome == ImportOutcome(inserted: 1))
        let same = try await f.importJSON("a.json", Make.observation("o1", value: "5.4"))
        #expect(same.outcome == ImportOutcome(unchanged: 1))
        let changed = try await f.importJSON("a.json", Make.observation("o1", value: "5.40"))
        #expect(changed.outcome == ImportOutcome(updated: 1))
        let stored = try await f.store.records(RecordQuery(type: .labResult))
        #expect(stored.count == 1)
        #expect(try stored[0].fhirResource.json().quantity("valueQuantity")?.value?.text == "5.40")
    }

    @Test(arguments: StoreEngine.all) func keepsContextResourcesOutOfRecordQueries(engine: StoreEngine) async throws {
        let f = try await StoreFixture(engine)
        try await f.importJSON("p.json", Make.bundle([#"{"resourceType":"Patient","id":"p1","birthDate":"1990-02-03"}"#, Make.observation("o1")]))
        #expect(try await f.store.count(RecordQuery(type: nil)) == 1)
        let patients = try await f.store.contextResources(ofType: .patient, source: "test")
        #expect(patients.map(\.resource.identifier) == ["p1"])
        #expect(patients[0].clinicalType == nil)
    }
}
