import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary
import Testing
import TestSupport

/// History windows on every engine: four apps — allowed with a 30-day window, allowed with
/// all of history, denied, undecided — read records dated a second inside and a second
/// outside the window (by clinical date, by added date for a record without one, by start for
/// samples) on every path a view has. Outside the window looks exactly like missing.
@Suite struct HistoryWindowTests {
    static let window = HistoryWindow.days(30)!
    static let types: Set<HealthDataType> = [.clinical(.labResult), .clinical(.coverage), .quantity(.bloodGlucose)]

    struct Seeded {
        let world: ConsentWorld
        /// limited, all, denied, undecided
        let apps: [String]
        /// The first instant the window shows when the apps read.
        let since: Date

        func view(_ k: Int) async throws -> AppView { try await world.consent.view(appID: apps[k]) }
    }

    static func lab(_ id: String, at date: Date) -> String {
        #"{"resourceType":"Observation","id":"\#(id)","status":"final","category":[{"coding":[{"code":"laboratory"}]}],"code":{"text":"\#(id)"},"effectiveDateTime":"\#(InstantText.string(date))"}"#
    }

    static func glucose(_ uuid: UUID, at date: Date) throws -> QuantitySample {
        try QuantitySample(uuid: uuid, type: .bloodGlucose, value: "5.4", unit: "mmol/L", startDate: date, source: RecordSource(identifier: "meter"))
    }

    static let glucoseIn = UUID(uuidString: "00000000-0000-0000-0000-0000000000a1")!
    static let glucoseOut = UUID(uuidString: "00000000-0000-0000-0000-0000000000a2")!
    static let glucoseInGone = UUID(uuidString: "00000000-0000-0000-0000-0000000000a3")!
    static let glucoseOutGone = UUID(uuidString: "00000000-0000-0000-0000-0000000000a4")!

    /// Records and samples around the window's start as it will be when the apps read (31 days
    /// after the world's clock starts), the four apps, then deletions of one record and one
    /// sample on each side.
    func seeded(_ engine: StoreEngine) async throws -> Seeded {
        let w = try await ConsentWorld(engine)
        let start = w.store.clock.now
        let readAt = start.addingTimeInterval(31 * 86_400)
        let since = try #require(Self.window.earliestDate(at: readAt))
        func moveTo(_ date: Date) { w.advance(date.timeIntervalSince(w.store.clock.now)) }
        // Coverage has no clinical date: its added date decides, a second either side.
        moveTo(since.addingTimeInterval(-1))
        try await w.importResources([Make.record(.coverage, id: "coverage-out")])
        moveTo(since.addingTimeInterval(1))
        try await w.importResources([
            Make.record(.coverage, id: "coverage-in"),
            Self.lab("lab-in", at: since.addingTimeInterval(1)), Self.lab("lab-out", at: since.addingTimeInterval(-1)),
            Self.lab("lab-in-gone", at: since.addingTimeInterval(1)), Self.lab("lab-out-gone", at: since.addingTimeInterval(-1)),
        ])
        _ = try await w.store.saveSamples([
            try Self.glucose(Self.glucoseIn, at: since.addingTimeInterval(1)), try Self.glucose(Self.glucoseOut, at: since.addingTimeInterval(-1)),
            try Self.glucose(Self.glucoseInGone, at: since.addingTimeInterval(1)), try Self.glucose(Self.glucoseOutGone, at: since.addingTimeInterval(-1)),
        ])
        var apps: [String] = []
        for k in 0..<4 {
            let creds = try await w.consent.register(
                name: "App \(k)", purpose: "Testing", privacyPolicyURL: URL(string: "https://example.org/privacy")!, requestedTypes: Self.types)
            switch k {
            case 0: try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: Self.types, newData: .share, history: Self.window))
            case 1: try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: Self.types, newData: .share))
            case 2: try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [], deny: Self.types))
            default: break
            }
            apps.append(creds.appID)
        }
        for id in ["lab-in-gone", "lab-out-gone"] {
            #expect(try await w.store.delete(source: "clinic", resourceType: "Observation", identifier: id) == 1)
        }
        #expect(try await w.store.deleteSamples(type: .bloodGlucose, predicate: .uuids([Self.glucoseInGone, Self.glucoseOutGone])) == 2)
        moveTo(readAt)
        return Seeded(world: w, apps: apps, since: since)
    }

    @Test(arguments: StoreEngine.all)
    func aWindowShowsTheRecordJustInsideAndNotTheOneJustOutside(engine: StoreEngine) async throws {
        let s = try await seeded(engine)
        // What each app should see: limited the "in" side only, all both, the others nothing.
        let labs: [[String]] = [["lab-in"], ["lab-in", "lab-out"], [], []]
        let coverage: [[String]] = [["coverage-in"], ["coverage-in", "coverage-out"], [], []]
        let glucose: [[UUID]] = [[Self.glucoseIn], [Self.glucoseIn, Self.glucoseOut], [], []]
        let goneLabs: [[String]] = [["lab-in-gone"], ["lab-in-gone", "lab-out-gone"], [], []]
        let goneGlucose: [[UUID]] = [[Self.glucoseInGone], [Self.glucoseInGone, Self.glucoseOutGone], [], []]
        for k in 0..<4 {
            let v = try await s.view(k)
            let label = ["limited", "all", "denied", "undecided"][k]
            for (type, want) in [(ClinicalType.labResult, labs[k]), (.coverage, coverage[k])] {
                #expect(try await v.records(RecordQuery(type: type)).map(\.fhirResource.identifier).sorted() == want, "\(label) \(type)")
                #expect(try await v.count(RecordQuery(type: type)) == want.count, "\(label) \(type)")
                let changes = try await v.changes(AnchoredQuery(type: type, anchor: nil))
                #expect(changes.added.map(\.fhirResource.identifier).sorted() == want, "\(label) \(type)")
                let resourceType: FHIRResourceType = type == .labResult ? "Observation" : "Coverage"
                for id in [type == .labResult ? "lab-in" : "coverage-in", type == .labResult ? "lab-out" : "coverage-out"] {
                    let found = try await v.resource(RecordIdentity(source: "clinic", resourceType: resourceType, identifier: id))
                    #expect((found != nil) == want.contains(id), "\(label) \(id)")
                    let byPredicate = try await v.records(
                        RecordQuery(type: nil, predicate: .identity(source: "clinic", resourceType: resourceType, identifier: id)))
                    #expect(byPredicate.count == (want.contains(id) ? 1 : 0), "\(label) \(id)")
                }
            }
            let deleted = try await v.changes(AnchoredQuery(type: .labResult, anchor: nil)).deleted.map(\.identity.identifier).sorted()
            #expect(deleted == goneLabs[k], "\(label) deletions")
            #expect(try await v.samples(QuantitySampleQuery(type: .bloodGlucose)).map(\.sample.uuid).sorted { $0.uuidString < $1.uuidString } == glucose[k], "\(label) samples")
            let sampleChanges = try await v.sampleChanges(AnchoredSampleQuery(type: .bloodGlucose, anchor: nil))
            #expect(sampleChanges.added.map(\.sample.uuid).sorted { $0.uuidString < $1.uuidString } == glucose[k], "\(label) sample changes")
            #expect(sampleChanges.deleted.map(\.uuid).sorted { $0.uuidString < $1.uuidString } == goneGlucose[k], "\(label) sample deletions")
            // The FHIR read path: the same rows, and the same total.
            let page = try await v.resources(ResourceQuery(resourceTypes: ["Observation", "Coverage"]), countingTotal: true)
            #expect(page.resources.map { $0.stored.resource.identifier }.sorted() == (labs[k] + coverage[k]).sorted(), "\(label) resources")
            #expect(page.total == labs[k].count + coverage[k].count, "\(label) resources total")
        }
    }

    @Test(arguments: StoreEngine.all)
    func earliestDatesAreGivenOnlyForWindowedTypes(engine: StoreEngine) async throws {
        let s = try await seeded(engine)
        let limited = try await s.view(0).earliestDates(for: Self.types)
        #expect(limited == Dictionary(uniqueKeysWithValues: Self.types.map { ($0, s.since) }))
        // All of history, denied and undecided look the same: no date.
        for k in 1..<4 { #expect(try await s.view(k).earliestDates(for: Self.types).isEmpty) }
    }

    /// A record added outside the window moves nothing the limited app can see: not its
    /// anchor, not its changes. One inside does.
    @Test(arguments: StoreEngine.all)
    func anOutOfWindowAdditionLeavesTheAppsAnchorAlone(engine: StoreEngine) async throws {
        let s = try await seeded(engine)
        let limited = try await s.view(0)
        let all = try await s.view(1)
        let before = (limited: try await limited.currentAnchor(), all: try await all.currentAnchor())
        try await s.world.importResources([Self.lab("lab-late-but-old", at: s.since.addingTimeInterval(-86_400))])
        // The import moved the clock a minute on, and the window with it: back, to compare.
        s.world.advance(-60)
        #expect(try await limited.currentAnchor() == before.limited)
        #expect(try await all.currentAnchor() > before.all)
        #expect(try await limited.changes(AnchoredQuery(type: nil, anchor: before.limited)).added.isEmpty)
        try await s.world.importResources([Self.lab("lab-late-and-new", at: s.world.store.clock.now)])
        s.world.advance(-60)
        #expect(try await limited.changes(AnchoredQuery(type: nil, anchor: before.limited)).added.map(\.fhirResource.identifier) == ["lab-late-and-new"])
    }

    /// The window moves with time: a record inside today is outside once the clock passes it.
    @Test(arguments: [StoreEngine.sqlite])
    func theWindowMovesWithTime(engine: StoreEngine) async throws {
        let s = try await seeded(engine)
        let limited = try await s.view(0)
        #expect(try await limited.count(RecordQuery(type: .labResult)) == 1)
        s.world.advance(2)
        #expect(try await limited.count(RecordQuery(type: .labResult)) == 0)
    }

    @Test func windowsReadAndWriteAsTheCLIAndFormsDo() {
        #expect(HistoryWindow(text: "30d") == .days(30))
        #expect(HistoryWindow(text: "1y") == .days(365))
        #expect(HistoryWindow(text: "ALL") == .all)
        for bad in ["", "d", "0d", "-3d", "30", "30 d", "1.5y", "101y", "36501d", "９d", "99999999999999999999d"] {
            #expect(HistoryWindow(text: bad) == nil, "\(bad)")
        }
        for w in HistoryWindow.choices + [.days(7)!, .days(730)!] { #expect(HistoryWindow(text: w.text) == w) }
        #expect(HistoryWindow.days(30)!.phrase == "the past 30 days")
        #expect(HistoryWindow.days(365)!.phrase == "the past year")
        let now = Date(timeIntervalSince1970: 1_000_000.4)
        #expect(HistoryWindow.days(1)!.earliestDate(at: now) == Date(timeIntervalSince1970: 1_000_000 - 86_400 + 1))
    }
}
