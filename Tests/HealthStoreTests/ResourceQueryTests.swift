import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import Testing
import TestSupport

/// `resources(_:visible:countingTotal:)`: every stored resource of a FHIR type — records and
/// context alike — filtered in SQL by type, category, release, snapshot, keys and dates, in a
/// stable order, a page at a time with its total; and ``AppView/resources(_:countingTotal:)``
/// through an app's grants. On every engine.
@Suite struct ResourceQueryTests {
    static let observations: [FHIRResourceType] = [.observation]

    /// Labs o1…o3, a vital sign, a survey (other observations), a Patient and a DSTU2 lab.
    static func world(_ engine: StoreEngine) async throws -> ConsentWorld {
        let w = try await ConsentWorld(engine)
        try await w.importResources([
            Make.observation("o1", date: "2020-01-02"), Make.observation("o2", value: "5.40", date: "2021-06-01T10:00:00Z"),
            Make.observation("o3", date: "2019"), Make.observation("v1", loinc: "8867-4", date: "2020-05", category: "vital-signs"),
            #"{"resourceType":"Observation","id":"s1","status":"final","category":[{"coding":[{"code":"survey"}]}],"code":{"text":"PHQ-9"},"effectiveDateTime":"2020-07-01"}"#,
            #"{"resourceType":"Patient","id":"p1","name":[{"family":"Roe"}]}"#,
        ])
        try await w.importResources(
            [#"{"resourceType":"Observation","id":"d1","category":{"coding":[{"code":"laboratory"}]},"code":{"text":"Old"},"effectiveDateTime":"2015-01-01"}"#],
            source: "legacy")
        return w
    }

    static func ids(_ page: ResourcePage) -> [String] { page.resources.map(\.stored.resource.identifier) }

    @Test(arguments: StoreEngine.all)
    func recordsAndContextAreFoundByTypeCategoryAndRelease(engine: StoreEngine) async throws {
        let w = try await Self.world(engine)
        let all = try await w.store.resources(ResourceQuery(resourceTypes: Set(Self.observations)), visible: nil, countingTotal: true)
        #expect(Self.ids(all) == ["o1", "o2", "o3", "v1", "s1", "d1"])
        #expect(all.total == 6)
        #expect(all.snapshot == (try await w.store.currentAnchor()))
        let r4 = try await w.store.resources(ResourceQuery(resourceTypes: Set(Self.observations), release: .r4), visible: nil, countingTotal: true)
        #expect(Self.ids(r4) == ["o1", "o2", "o3", "v1", "s1"] && r4.total == 5)
        let dstu2 = try await w.store.resources(ResourceQuery(resourceTypes: nil, release: .dstu2), visible: nil, countingTotal: false)
        #expect(Self.ids(dstu2) == ["d1"])
        let labs = try await w.store.resources(
            ResourceQuery(resourceTypes: Set(Self.observations), categories: [.clinical(.labResult)], release: .r4), visible: nil, countingTotal: true)
        #expect(Self.ids(labs) == ["o1", "o2", "o3"] && labs.total == 3)
        let context = try await w.store.resources(
            ResourceQuery(resourceTypes: nil, excludedResourceTypes: Set(Self.observations)), visible: nil, countingTotal: true)
        #expect(Self.ids(context) == ["p1"] && context.resources[0].stored.category == ConsentCategory.context(.personalDetails))
        // Bytes come back as stored.
        let o2 = try #require(labs.resources.first { $0.stored.resource.identifier == "o2" })
        #expect(String(decoding: o2.stored.resource.data, as: UTF8.self).contains(#""value":5.40"#))
    }

    @Test(arguments: StoreEngine.all)
    func keysFindOneResourceAndOnlyOfItsSourceAndType(engine: StoreEngine) async throws {
        let w = try await Self.world(engine)
        let key = w.store.resourceKey(source: "clinic", resourceType: .observation, identifier: "o2")
        #expect(ResourceKey(hex: key.hex) == key && key.hex.count == 64 && FHIRResource.isValidIdentifier(key.hex))
        #expect(ResourceKey(hex: key.hex.uppercased()) == nil && ResourceKey(hex: "abc") == nil)
        let found = try await w.store.resources(ResourceQuery(resourceTypes: Set(Self.observations), keys: [key]), visible: nil, countingTotal: true)
        #expect(Self.ids(found) == ["o2"] && found.resources[0].key == key && found.total == 1)
        let otherSource = w.store.resourceKey(source: "legacy", resourceType: .observation, identifier: "o2")
        let wrongType = try await w.store.resources(ResourceQuery(resourceTypes: [.patient], keys: [key]), visible: nil, countingTotal: true)
        let missing = try await w.store.resources(ResourceQuery(resourceTypes: nil, keys: [otherSource]), visible: nil, countingTotal: true)
        let none = try await w.store.resources(ResourceQuery(resourceTypes: nil, keys: []), visible: nil, countingTotal: true)
        #expect(wrongType.resources.isEmpty && missing.resources.isEmpty && none.resources.isEmpty && none.total == 0)
    }

    @Test(arguments: StoreEngine.all)
    func pagesAreStableInEveryOrderAndTheSnapshotHoldsOutNewResources(engine: StoreEngine) async throws {
        let w = try await Self.world(engine)
        var q = ResourceQuery(resourceTypes: Set(Self.observations), release: .r4, limit: 2)
        let first = try await w.store.resources(q, visible: nil, countingTotal: true)
        #expect(Self.ids(first) == ["o1", "o2"] && first.total == 5)
        try await w.importResources([Make.observation("o4", date: "2018-01-01")])
        q.addedThrough = first.snapshot
        q.offset = 2
        let second = try await w.store.resources(q, visible: nil, countingTotal: true)
        #expect(Self.ids(second) == ["o3", "v1"] && second.total == 5 && second.snapshot == first.snapshot)
        q.offset = 4
        #expect(Self.ids(try await w.store.resources(q, visible: nil, countingTotal: false)) == ["s1"])
        q.addedThrough = nil
        q.offset = 0
        q.limit = nil
        q.sort = RecordSort(.clinical, ascending: true)
        #expect(Self.ids(try await w.store.resources(q, visible: nil, countingTotal: false)) == ["o4", "o3", "o1", "v1", "s1", "o2"])
        q.sort = RecordSort(.clinical, ascending: false)
        q.offset = 1
        q.limit = 3
        #expect(Self.ids(try await w.store.resources(q, visible: nil, countingTotal: false)) == ["s1", "v1", "o1"])
        q.sort = RecordSort(.added, ascending: false)
        q.offset = 0
        q.limit = 1
        #expect(Self.ids(try await w.store.resources(q, visible: nil, countingTotal: false)) == ["o4"])
        q.limit = -1
        await #expect(throws: HealthStoreError.self) { try await w.store.resources(q, visible: nil, countingTotal: false) }
    }

    /// Dates of every precision against bounds at and around their edges: SQL decides what the
    /// spans of ``FHIRDate/interval`` say.
    @Test(arguments: StoreEngine.all)
    func clinicalDateBoundsFollowEachDatesPrecision(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let texts = [
            "2024", "2024-05", "2024-05-01", "2024-05-31", "2024-05-01T10:00Z", "2024-05-01T10:00:00Z", "2024-05-01T23:59:59.5Z",
            "2024-04-30T22:30:00-02:00", "2023-12-31", "2025-01-01",
        ]
        try await w.importResources(texts.enumerated().map { Make.observation("d\($0.offset)", date: $0.element) })
        let instants = [
            "2024-01-01T00:00:00Z", "2024-05-01T00:00:00Z", "2024-05-01T10:00:00Z", "2024-05-01T10:00:30Z", "2024-05-01T10:01:00Z",
            "2024-05-02T00:00:00Z", "2024-05-02T00:00:00.250Z", "2024-06-01T00:00:00Z", "2025-01-01T00:00:00Z", "2023-12-31T12:00:00Z",
        ].map { FHIRDate($0)!.date }
        let spans = Dictionary(uniqueKeysWithValues: texts.enumerated().map { ("d\($0.offset)", FHIRDate($0.element)!.interval) })
        for x in instants {
            let cases: [(DateCondition.Bound, (DateInterval) -> Bool)] = [
                (.startsBefore(x), { $0.start < x }), (.startsAtOrAfter(x), { $0.start >= x }),
                (.endsAtOrBefore(x), { $0.end <= x }), (.endsAfter(x), { $0.end > x }),
            ]
            for (bound, expected) in cases {
                let page = try await w.store.resources(
                    ResourceQuery(resourceTypes: Set(Self.observations), clinicalDate: [DateCondition(bound)]), visible: nil, countingTotal: true)
                let want = spans.filter { expected($0.value) }.keys.sorted()
                #expect(Self.ids(page).sorted() == want, "\(bound)")
                #expect(page.total == want.count)
            }
        }
        // Start and end bounds ORed (as `ge`, `le` and `ne` search), with bounds on either side
        // of every date's edges: the page and its total are the matches.
        for x in instants {
            for y in instants.prefix(6) {
                let cases: [([DateCondition.Bound], (DateInterval) -> Bool)] = [
                    ([.startsAtOrAfter(x), .endsAfter(y)], { $0.start >= x || $0.end > y }),
                    ([.endsAtOrBefore(y), .startsBefore(x)], { $0.start < x || $0.end <= y }),
                    ([.startsBefore(x), .endsAfter(y)], { $0.start < x || $0.end > y }),
                    ([.endsAfter(y), .startsAtOrAfter(x), .startsBefore(y)], { $0.end > y || $0.start >= x || $0.start < y }),
                ]
                for (bounds, expected) in cases {
                    let query = ResourceQuery(resourceTypes: Set(Self.observations), clinicalDate: [DateCondition(anyOf: bounds)])
                    let page = try await w.store.resources(query, visible: nil, countingTotal: true)
                    let want = spans.filter { expected($0.value) }.keys.sorted()
                    #expect(Self.ids(page).sorted() == want && page.total == want.count, "\(bounds): \(page.total ?? -1)")
                }
            }
        }
        // Conditions AND; bounds of one condition OR.
        let may = FHIRDate("2024-05")!.interval
        let within = try await w.store.resources(
            ResourceQuery(resourceTypes: nil, clinicalDate: [DateCondition(.startsAtOrAfter(may.start)), DateCondition(.endsAtOrBefore(may.end))]),
            visible: nil, countingTotal: false)
        #expect(Self.ids(within).sorted() == spans.filter { $0.value.start >= may.start && $0.value.end <= may.end }.keys.sorted())
        let outside = try await w.store.resources(
            ResourceQuery(resourceTypes: nil, clinicalDate: [DateCondition(anyOf: [.startsBefore(may.start), .endsAfter(may.end)])]),
            visible: nil, countingTotal: false)
        #expect(Set(Self.ids(outside)).isDisjoint(with: Self.ids(within)))
        #expect(Self.ids(outside).count + Self.ids(within).count == texts.count)
    }

    @Test(arguments: StoreEngine.all)
    func addedDatesAreInstants(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        try await w.importResources([Make.observation("a1")])
        try await w.importResources([Make.observation("a2")])
        let added = try await w.store.resources(ResourceQuery(resourceTypes: nil), visible: nil, countingTotal: false).resources.map(\.stored.addedDate)
        let cut = added[1]
        func ids(_ c: DateCondition) async throws -> [String] {
            Self.ids(try await w.store.resources(ResourceQuery(resourceTypes: nil, addedDate: [c]), visible: nil, countingTotal: false))
        }
        #expect(try await ids(DateCondition(.startsAtOrAfter(cut))) == ["a2"])
        #expect(try await ids(DateCondition(.endsAfter(cut))) == ["a2"])
        #expect(try await ids(DateCondition(.startsBefore(cut))) == ["a1"])
        #expect(try await ids(DateCondition(.endsAtOrBefore(cut))) == ["a1"])
        #expect(try await ids(DateCondition(anyOf: [])) == [])
    }

    @Test(arguments: StoreEngine.all)
    func anAppSeesOnlyItsGrantedAndApprovedCategoriesAndTheReadIsAudited(engine: StoreEngine) async throws {
        let w = try await Self.world(engine)
        let creds = try await w.consent.register(
            name: "App", purpose: "Charts", privacyPolicyURL: URL(string: "https://app.example/privacy")!,
            requestedTypes: [.clinical(.labResult), .clinical(.vitalSign), .context(.personalDetails)])
        _ = try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.labResult), .context(.personalDetails)], deny: [.clinical(.vitalSign)], newData: .ask))
        let app = try await w.consent.view(appID: creds.appID)
        try await w.importResources([Make.observation("late")])
        let q = ResourceQuery(resourceTypes: nil, release: .r4)
        let seen = try await app.resources(q, countingTotal: true)
        #expect(Self.ids(seen) == ["o1", "o2", "o3", "p1"] && seen.total == 4)
        var narrowed = q
        narrowed.categories = [.clinical(.labResult), .clinical(.vitalSign)]
        #expect(Self.ids(try await app.resources(narrowed, countingTotal: false)) == ["o1", "o2", "o3"])
        narrowed.categories = [.clinical(.vitalSign)]
        let denied = try await app.resources(narrowed, countingTotal: true)
        #expect(denied.resources.isEmpty && denied.total == 0)
        _ = try await w.consent.approveNewData(appID: creds.appID)
        #expect(Self.ids(try await app.resources(q, countingTotal: false)) == ["o1", "o2", "o3", "p1", "late"])
        let log = try await w.consent.auditLog(appID: creds.appID)
        #expect(log.filter { $0.operation == "resources" }.map(\.count) == [4, 3, 0, 5])
        #expect(app.resourceKey(source: "clinic", resourceType: .observation, identifier: "o1") == w.store.resourceKey(source: "clinic", resourceType: .observation, identifier: "o1"))
    }
}
