import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import Testing
import TestSupport

/// Three apps × nine clinical types × four grant states, on every engine: each app sees exactly
/// what its grants allow on every query path, and an app that is denied everything gets
/// exactly what an empty store gives — lists, counts, anchors and errors.
@Suite struct ConsentMatrixTests {
    enum GrantState: CaseIterable {
        case allowed, denied, undecided, askWithNewData
    }

    static let resourceTypes: [ClinicalType: FHIRResourceType] = [
        .allergy: "AllergyIntolerance", .condition: "Condition", .immunization: "Immunization", .labResult: "Observation",
        .medication: "MedicationStatement", .procedure: "Procedure", .vitalSign: "Observation", .coverage: "Coverage",
        .clinicalNote: "DocumentReference",
    ]

    struct Seeded {
        let world: ConsentWorld
        let apps: [String]
        let states: [[ClinicalType: GrantState]]

        func view(_ k: Int) async throws -> AppView { try await world.consent.view(appID: apps[k]) }

        /// The record ids app `k` may see of a type: old-1 (updated after the grant, still
        /// visible under "ask"), new (added after the grant), never old-2 (deleted).
        func expected(_ k: Int, _ t: ClinicalType) -> [String] {
            switch states[k][t]! {
            case .allowed: return ["\(t.rawValue)-new", "\(t.rawValue)-old-1"]
            case .askWithNewData: return ["\(t.rawValue)-old-1"]
            case .denied, .undecided: return []
            }
        }

        func expectedDeleted(_ k: Int, _ t: ClinicalType) -> [String] {
            [.allowed, .askWithNewData].contains(states[k][t]!) ? ["\(t.rawValue)-old-2"] : []
        }
    }

    /// Old records, three apps and their grants, then new records, an update and a deletion
    /// of every type.
    func seeded(_ engine: StoreEngine) async throws -> Seeded {
        let w = try await ConsentWorld(engine)
        var old: [String] = ClinicalType.allCases.flatMap { [Make.record($0, id: "\($0.rawValue)-old-1"), Make.record($0, id: "\($0.rawValue)-old-2")] }
        old.append(#"{"resourceType":"Patient","id":"p1","name":[{"family":"Doe"}]}"#)
        try await w.importResources(old)
        let all = Set(ClinicalType.allCases.map(HealthDataType.clinical))
        var apps: [String] = []
        var states: [[ClinicalType: GrantState]] = []
        for k in 0..<3 {
            let creds = try await w.consent.register(
                name: "App \(k)", purpose: "Testing", privacyPolicyURL: URL(string: "https://example.org/privacy")!, requestedTypes: all)
            var byType: [ClinicalType: GrantState] = [:]
            for (i, t) in ClinicalType.allCases.enumerated() {
                // Apps 0 and 1 take every state in turn; app 2 is denied or undecided on everything.
                byType[t] = k < 2 ? GrantState.allCases[(i + k) % 4] : (i % 2 == 0 ? .denied : .undecided)
            }
            let pick = { (s: GrantState) in Set(byType.filter { $0.value == s }.keys.map(HealthDataType.clinical)) }
            try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: pick(.allowed), deny: pick(.denied), newData: .share))
            try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: pick(.askWithNewData), newData: .ask))
            apps.append(creds.appID)
            states.append(byType)
        }
        try await w.importResources(ClinicalType.allCases.map { Make.record($0, id: "\($0.rawValue)-new") })
        try await w.importResources(ClinicalType.allCases.map { Make.record($0, id: "\($0.rawValue)-old-1", text: "Renamed") })
        for t in ClinicalType.allCases {
            #expect(try await w.store.delete(source: "clinic", resourceType: Self.resourceTypes[t], identifier: "\(t.rawValue)-old-2") == 1)
        }
        return Seeded(world: w, apps: apps, states: states)
    }

    func identity(_ t: ClinicalType, _ id: String) -> RecordIdentity {
        RecordIdentity(source: "clinic", resourceType: Self.resourceTypes[t]!, identifier: id)
    }

    @Test(arguments: StoreEngine.all)
    func eachAppSeesExactlyItsGrantsOnEveryPath(engine: StoreEngine) async throws {
        let s = try await seeded(engine)
        let empty = try await ConsentWorld(engine)
        for k in 0..<3 {
            let v = try await s.view(k)
            for t in ClinicalType.allCases {
                let want = s.expected(k, t)
                let label = "app \(k) \(t) \(s.states[k][t]!)"
                #expect(try await v.records(RecordQuery(type: t)).map(\.fhirResource.identifier).sorted() == want, "\(label)")
                #expect(try await v.count(RecordQuery(type: t)) == want.count, "\(label)")
                let changes = try await v.changes(AnchoredQuery(type: t, anchor: nil))
                #expect(changes.added.map(\.fhirResource.identifier).sorted() == want, "\(label)")
                #expect(changes.deleted.map(\.identity.identifier) == s.expectedDeleted(k, t), "\(label)")
                for id in ["\(t.rawValue)-old-1", "\(t.rawValue)-new", "\(t.rawValue)-old-2"] {
                    let sees = want.contains(id)
                    let found = try await v.resource(identity(t, id))
                    #expect((found != nil) == sees, "\(label) \(id)")
                    let i = identity(t, id)
                    let byPredicate = try await v.records(RecordQuery(type: nil, predicate: .identity(source: i.source, resourceType: i.resourceType, identifier: i.identifier)))
                    #expect(byPredicate.count == (sees ? 1 : 0), "\(label) \(id)")
                }
                if want.isEmpty {
                    // A denied or undecided type answers as the empty store does.
                    let e = empty.store
                    let mine = try await v.records(RecordQuery(type: t))
                    let theirs = try await e.records(RecordQuery(type: t))
                    #expect(mine == theirs)
                    #expect(try await v.count(RecordQuery(type: t, predicate: .source("clinic"))) == (try await e.count(RecordQuery(type: t, predicate: .source("clinic")))))
                }
            }
            let union = ClinicalType.allCases.flatMap { s.expected(k, $0) }.sorted()
            #expect(try await v.records(RecordQuery(type: nil)).map(\.fhirResource.identifier).sorted() == union)
            #expect(try await v.count(RecordQuery(type: nil)) == union.count)
            #expect(try await v.changes(AnchoredQuery(type: nil, anchor: nil)).added.map(\.fhirResource.identifier).sorted() == union)
            // Context: the Patient is personal details, a category none of these apps was granted
            // (CategoryMatrixTests covers every category); seeing records from its source is not enough.
            #expect(try await v.contextResources(ofType: .patient, source: nil).isEmpty)
            #expect(try await v.resource(RecordIdentity(source: "clinic", resourceType: .patient, identifier: "p1")) == nil)
            #expect(try await v.sources().map(\.identifier) == (union.isEmpty ? [] : ["clinic"]))
        }
    }

    @Test(arguments: StoreEngine.all)
    func aDeniedAppGetsExactlyWhatAnEmptyStoreGives(engine: StoreEngine) async throws {
        let s = try await seeded(engine)
        let denied = try await s.view(2)
        // The empty store, raw and through an app allowed everything: both must match.
        let emptyWorld = try await ConsentWorld(engine)
        let all = Set(HealthDataType.allCases)
        let creds = try await emptyWorld.consent.register(
            name: "Everything", purpose: "Compare", privacyPolicyURL: URL(string: "https://example.org/p")!, requestedTypes: all)
        try await emptyWorld.consent.decide(appID: creds.appID, AuthorizationDecision(allow: all, newData: .share))
        let emptyView = try await emptyWorld.consent.view(appID: creds.appID)
        let rawWorld = try await ConsentWorld(engine)
        let raw = rawWorld.store

        for type in [nil] + ClinicalType.allCases.map(Optional.some) {
            for anchor in [nil, QueryAnchor.initial, QueryAnchor(rawValue: 5)] {
                for limit in [nil, 0, 1] {
                    let q = AnchoredQuery(type: type, anchor: anchor, limit: limit)
                    let d = try await denied.changes(q)
                    for e in [try await raw.changes(q), try await emptyView.changes(q)] {
                        #expect(d.added.isEmpty && e.added.isEmpty && d.deleted.isEmpty && e.deleted.isEmpty)
                        #expect(d.anchor == e.anchor, "\(String(describing: type)) \(String(describing: anchor)) \(String(describing: limit))")
                    }
                }
            }
            let q = RecordQuery(type: type, predicate: .source("clinic"), limit: 10, sort: RecordSort(.clinical, ascending: false))
            let lists = [try await denied.records(q), try await raw.records(q), try await emptyView.records(q)]
            #expect(lists.allSatisfy { $0.isEmpty })
            #expect(try await denied.count(q) == (try await raw.count(q)))
            #expect(try await denied.count(q) == (try await emptyView.count(q)))
        }
        #expect(try await denied.currentAnchor() == (try await raw.currentAnchor()))
        #expect(try await denied.currentAnchor() == (try await emptyView.currentAnchor()))

        // Errors are the empty store's errors.
        let bad = RecordQuery(type: .condition, limit: -1)
        let deniedError = await #expect(throws: HealthStoreError.self) { try await denied.records(bad) }
        let emptyError = await #expect(throws: HealthStoreError.self) { try await raw.records(bad) }
        #expect(deniedError == emptyError)
        let badChanges = AnchoredQuery(type: nil, anchor: nil, limit: -1)
        let e1 = await #expect(throws: HealthStoreError.self) { try await denied.changes(badChanges) }
        let e2 = await #expect(throws: HealthStoreError.self) { try await raw.changes(badChanges) }
        #expect(e1 == e2)

        // Lookups by identity, context, sources and samples: nothing, as in the empty store.
        for t in ClinicalType.allCases {
            let i = identity(t, "\(t.rawValue)-old-1")
            let d = try await denied.resource(i)
            let r = try await raw.resource(i)
            #expect(d == nil && r == nil)
        }
        #expect(try await denied.contextResources(ofType: .patient, source: "clinic") == (try await raw.contextResources(ofType: .patient, source: "clinic")))
        #expect(try await denied.sources() == (try await raw.sources()))
        #expect(try await denied.samples(QuantitySampleQuery(type: nil)) == (try await raw.samples(QuantitySampleQuery(type: nil))))
        let ds = try await denied.sampleChanges(AnchoredSampleQuery(type: nil, anchor: nil))
        let es = try await raw.sampleChanges(AnchoredSampleQuery(type: nil, anchor: nil))
        #expect(ds.added.isEmpty && ds.deleted.isEmpty && ds.anchor == es.anchor)
    }

    @Test(arguments: StoreEngine.all)
    func askKeepsNewRecordsBackUntilApproved(engine: StoreEngine) async throws {
        let s = try await seeded(engine)
        let v = try await s.view(0)
        let askTypes = s.states[0].filter { $0.value == .askWithNewData }.map(\.key)
        let ask = try #require(askTypes.first)
        let shared = try #require(s.states[0].first { $0.value == .allowed }?.key)
        let undecided = try #require(s.states[0].first { $0.value == .undecided }?.key)
        let denied = try #require(s.states[0].first { $0.value == .denied }?.key)
        #expect(try await v.requestStatus(for: [.clinical(ask)]) == .shouldRequest)
        #expect(try await v.requestStatus(for: [.clinical(shared)]) == .unnecessary)
        #expect(try await v.requestStatus(for: [.clinical(denied)]) == .unnecessary)
        #expect(try await v.requestStatus(for: [.clinical(undecided)]) == .shouldRequest)

        // The app synced before the approval; after it, its next anchored query brings the approved record.
        let before = try await v.changes(AnchoredQuery(type: nil, anchor: nil))
        #expect(!before.added.map(\.fhirResource.identifier).contains("\(ask.rawValue)-new"))
        #expect(try await s.world.consent.approveNewData(appID: s.apps[0]) == askTypes.count)
        #expect(try await v.requestStatus(for: Set(askTypes.map(HealthDataType.clinical))) == .unnecessary)
        #expect(try await v.records(RecordQuery(type: ask)).map(\.fhirResource.identifier).sorted() == ["\(ask.rawValue)-new", "\(ask.rawValue)-old-1"])
        let after = try await v.changes(AnchoredQuery(type: nil, anchor: before.anchor))
        #expect(after.added.map(\.fhirResource.identifier).contains("\(ask.rawValue)-new"))
        #expect(after.anchor > before.anchor)
        let settled = try await v.changes(AnchoredQuery(type: nil, anchor: after.anchor))
        #expect(settled.added.isEmpty && settled.deleted.isEmpty && settled.anchor == after.anchor)

        // Data added after the approval waits again.
        try await s.world.importResources([Make.record(ask, id: "\(ask.rawValue)-newer")])
        #expect(try await v.requestStatus(for: [.clinical(ask)]) == .shouldRequest)
        #expect(try await v.count(RecordQuery(type: ask)) == 2)
    }

    @Test(arguments: StoreEngine.all)
    func anchoredPagesOfAnAppCoverEveryVisibleChangeOnce(engine: StoreEngine) async throws {
        let s = try await seeded(engine)
        let v = try await s.view(1)
        let whole = try await v.changes(AnchoredQuery(type: nil, anchor: nil))
        // Anchors from an app's first full sync onward page one change at a time.
        try await s.world.importResources(ClinicalType.allCases.map { Make.record($0, id: "\($0.rawValue)-later") })
        var anchor = whole.anchor
        var seen: [String] = []
        for _ in 0..<40 {
            let page = try await v.changes(AnchoredQuery(type: nil, anchor: anchor, limit: 1))
            seen += page.added.map(\.fhirResource.identifier) + page.deleted.map(\.identity.identifier)
            if page.added.isEmpty && page.deleted.isEmpty { break }
            #expect(page.added.count + page.deleted.count == 1)
            anchor = page.anchor
        }
        let shared = ClinicalType.allCases.filter { s.states[1][$0] == .allowed }.map { "\($0.rawValue)-later" }
        #expect(seen.sorted() == shared.sorted())
    }

    @Test(arguments: StoreEngine.all)
    func readsAreAuditedAndRevokingRemovesGrants(engine: StoreEngine) async throws {
        let s = try await seeded(engine)
        let v = try await s.view(0)
        let shared = try #require(s.states[0].first { $0.value == .allowed }?.key)
        let denied = try #require(s.states[0].first { $0.value == .denied }?.key)
        _ = try await v.records(RecordQuery(type: shared))
        _ = try await v.records(RecordQuery(type: denied))
        _ = try await v.count(RecordQuery(type: shared))
        let log = try await s.world.consent.auditLog(appID: s.apps[0])
        #expect(log.map(\.operation) == ["records", "records", "count"])
        #expect(log.map(\.types) == [[.clinical(shared)], [.clinical(denied)], [.clinical(shared)]])
        #expect(log.map(\.count) == [2, 0, 2])
        #expect(log.allSatisfy { $0.appID == s.apps[0] })
        #expect(try await s.world.consent.auditLog(appID: s.apps[1]).isEmpty)

        #expect(try await s.world.consent.revoke(appID: s.apps[0]) > 0)
        #expect(try await v.records(RecordQuery(type: nil)).isEmpty)
        #expect(try await v.requestStatus(for: [.clinical(shared)]) == .shouldRequest)
        #expect(try await s.world.consent.auditLog().count == 4)
    }
}
