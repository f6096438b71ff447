import ClinicalRecords
import FHIR
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// Paging through searches with `next` links while records arrive, and `$everything`.
@Suite struct FHIRPagingTests {
    @Test(arguments: ServerEngine.all)
    func pagingThroughEveryLabResultWhileRecordsArriveMissesAndRepeatsNothing(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        try await f.world.importResources((1...23).map { FHIRWorld.lab("n\($0)", date: "2023-01-\(String(format: "%02d", $0))") }, source: "clinic")
        let person = try await f.personID()
        var known = ["l1", "l2", "l3", "h1"] + (1...23).map { "n\($0)" }
        for sort in ["", "&_sort=-date", "&_sort=_lastUpdated"] {
            let expected = known
            let arrivals: [String] = try await f.world.test(.live) { client in
                let token = try await client.token(f.app)
                var arrived: [String] = []
                let pages = try await client.pages("/fhir/Observation?patient=\(person)&category=laboratory&_count=5\(sort)", token: token) { _ in
                    // New lab results (later dates, so they would sort first under -date) arrive between pages.
                    let name = "new\(arrived.count)x\(sort.count)"
                    arrived.append(name)
                    try await f.world.importResources([FHIRWorld.lab(name, date: "2024-0\(arrived.count % 9 + 1)-01")], source: "clinic")
                }
                let names = pages.flatMap(\.names)
                #expect(names.count == expected.count, "\(sort)")
                #expect(Set(names) == Set(expected), "\(sort)")
                #expect(pages.map { $0.json["total"] as? Int } == Array(repeating: expected.count, count: pages.count))
                #expect(pages.count == (expected.count + 4) / 5 && pages.dropLast().allSatisfy { $0.names.count == 5 })
                // Each page's self link is the link that asked for it.
                #expect(pages[1].link("self") == pages[0].link("next"))
                // A new search sees what arrived.
                let fresh = try await client.fhir("/fhir/Observation?category=laboratory&_count=0", token: token)
                #expect(fresh.json["total"] as? Int == expected.count + arrived.count)
                return arrived
            }
            known += arrivals
        }
    }

    @Test(arguments: ServerEngine.all)
    func aSearchFilteredInMemoryPagesTheSameWay(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        try await f.world.importResources((1...12).map { FHIRWorld.lab("m\($0)", date: "2023-02-\(String(format: "%02d", $0))", loinc: $0 % 2 == 0 ? "4548-4" : "2339-0") })
        try await f.world.test(.live) { client in
            let token = try await client.token(f.app)
            let pages = try await client.pages("/fhir/Observation?code=http://loinc.org|4548-4&_count=4", token: token) { _ in
                try await f.world.importResources([FHIRWorld.lab("late\(UUID().uuidString.prefix(4))", date: "2023-03-01", loinc: "4548-4")])
            }
            let names = pages.flatMap(\.names)
            #expect(names == ["l2", "m2", "m4", "m6", "m8", "m10", "m12"])
            #expect(pages.map { $0.json["total"] as? Int } == [7, 7])
        }
    }

    @Test(arguments: ServerEngine.all)
    func everythingIsThePatientThenEveryVisibleR4ResourceInPages(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        let person = try await f.personID()
        try await f.world.test(.live) { client in
            let token = try await client.token(f.app)
            let pages = try await client.pages("/fhir/Patient/\(person)/$everything?_count=4", token: token)
            let resources = pages.flatMap(\.resources)
            #expect(resources.first?["id"] as? String == person && resources.first?["resourceType"] as? String == "Patient")
            // Labs, the vital sign, the survey, conditions, the report and the encounter; not the
            // denied immunization, not the providers' Patients, not the DSTU2 export.
            #expect(resources.dropFirst().map(FHIRAnswer.name) == ["l1", "l2", "l3", "v1", "s1", "c1", "c2", "r1", "e1", "h1"])
            #expect(pages.map { $0.json["total"] as? Int } == [11, 11, 11])
            #expect(pages.map(\.resources.count) == [4, 4, 3])
            let typed = try await client.fhir("/fhir/Patient/\(person)/$everything?_type=Condition,Encounter", token: token)
            #expect(typed.names == ["c1", "c2", "e1"] && typed.json["total"] as? Int == 3)
            let since = try await client.fhir("/fhir/Patient/\(person)/$everything?_since=2023-11-14T22:14:00Z", token: token)
            #expect(since.names == ["Patient", "h1"])
            let bad = try await client.fhir("/fhir/Patient/\(person)/$everything?_type=Nonsense", token: token)
            #expect(bad.status == .badRequest && bad.issue?.diagnostics.hasPrefix("_type: ") == true)
            #expect(try await client.fhir("/fhir/Patient/\(person)/$nonsense", token: token).status == .badRequest)
        }
    }
}
