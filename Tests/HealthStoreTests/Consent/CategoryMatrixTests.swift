import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import Testing
import TestSupport

/// Every consent category × every grant state, on every engine, by id and by FHIR type: a
/// resource outside the nine clinical types is readable only through its own category's grant,
/// and under "ask" only once approved — the holes an attacker found (a Patient with an SSN, an
/// Encounter whose reason was a denied condition, claims, a PHQ-9 survey) stay closed.
@Suite struct CategoryMatrixTests {
    enum GrantState: CaseIterable { case allowed, denied, undecided, askWithNewData }

    /// One resource per context category (and one per clinical type), as a provider sends it.
    static func resources(suffix: String) -> [(ConsentCategory, FHIRResourceType, String, String)] {
        var out: [(ConsentCategory, FHIRResourceType, String, String)] = []
        func add(_ c: ConsentCategory, _ type: String, _ json: String) {
            let id = "\(c.rawValue)-\(suffix)"
            out.append((c, FHIRResourceType(type), id, json.replacingOccurrences(of: "ID", with: id)))
        }
        add(.context(.personalDetails), "Patient", #"{"resourceType":"Patient","id":"ID","identifier":[{"system":"http://hl7.org/fhir/sid/us-ssn","value":"999-12-3456"}]}"#)
        add(.context(.visits), "Encounter", #"{"resourceType":"Encounter","id":"ID","status":"finished","reasonCode":[{"text":"HIV"}]}"#)
        add(.context(.practitionerDetails), "Practitioner", #"{"resourceType":"Practitioner","id":"ID","name":[{"family":"Who"}]}"#)
        add(.context(.socialHistory), "Observation", #"{"resourceType":"Observation","id":"ID","status":"final","category":[{"coding":[{"code":"social-history"}]}],"code":{"text":"Smoking"}}"#)
        add(.context(.otherObservations), "Observation", #"{"resourceType":"Observation","id":"ID","status":"final","category":[{"coding":[{"code":"survey"}]}],"code":{"text":"PHQ-9"},"valueInteger":21}"#)
        add(.context(.claims), "ExplanationOfBenefit", #"{"resourceType":"ExplanationOfBenefit","id":"ID","status":"active","diagnosis":[{"sequence":1}]}"#)
        add(.context(.carePlans), "CarePlan", #"{"resourceType":"CarePlan","id":"ID","status":"active","intent":"plan"}"#)
        add(.context(.medicationDetails), "Medication", #"{"resourceType":"Medication","id":"ID","code":{"text":"Tenofovir"}}"#)
        add(.context(.devices), "Device", #"{"resourceType":"Device","id":"ID"}"#)
        add(.context(.other), "Provenance", #"{"resourceType":"Provenance","id":"ID","recorded":"2020-01-01T00:00:00Z"}"#)
        for t in ClinicalType.allCases {
            let id = "\(t.rawValue)-\(suffix)"
            out.append((.clinical(t), FHIRResourceType(ConsentMatrixTests.resourceTypes[t]!.rawValue), id, Make.record(t, id: id)))
        }
        return out
    }

    @Test func everyCategoryIsWhatTheClassifierSays() throws {
        for (category, _, _, json) in Self.resources(suffix: "x") {
            let r = try FHIRResource(data: Data(json.utf8))
            #expect(ClinicalClassifier().category(of: r, json: try r.json()) == category, "\(json)")
        }
        #expect(ConsentCategory.allCases.count == ClinicalType.allCases.count + ContextCategory.allCases.count)
    }

    @Test(arguments: StoreEngine.all)
    func eachCategoryIsVisibleOnlyThroughItsGrant(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let old = Self.resources(suffix: "old")
        try await w.importResources(old.map(\.3))
        let categories = ConsentCategory.allCases
        let all = Set(categories.map(HealthDataType.init))
        // Two apps take every state for every category, in turn.
        var apps: [(String, [ConsentCategory: GrantState])] = []
        for k in 0..<2 {
            let creds = try await w.consent.register(
                name: "App \(k)", purpose: "Testing", privacyPolicyURL: URL(string: "https://example.org/privacy")!, requestedTypes: all)
            var states: [ConsentCategory: GrantState] = [:]
            for (i, c) in categories.enumerated() { states[c] = GrantState.allCases[(i + k) % 4] }
            let allow = Set(categories.filter { [.allowed, .askWithNewData].contains(states[$0]!) }.map(HealthDataType.init))
            let deny = Set(categories.filter { states[$0] == .denied }.map(HealthDataType.init))
            try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: allow, deny: deny, newData: .ask))
            // "allowed" shares new data; "ask" waits for approval.
            let share = Set(categories.filter { states[$0] == .allowed }.map(HealthDataType.init))
            if !share.isEmpty { try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: share, newData: .share)) }
            apps.append((creds.appID, states))
        }
        w.advance()
        let new = Self.resources(suffix: "new")
        try await w.importResources(new.map(\.3))

        for (appID, states) in apps {
            let view = try await w.consent.view(appID: appID)
            for (category, type, id, _) in old + new {
                let isNew = id.hasSuffix("-new")
                let visible: Bool
                switch states[category]! {
                case .allowed: visible = true
                case .askWithNewData: visible = !isNew
                case .denied, .undecided: visible = false
                }
                let found = try await view.resource(RecordIdentity(source: "clinic", resourceType: type, identifier: id))
                #expect((found != nil) == visible, "\(engine) \(category) \(states[category]!) \(id) by id")
                if let found { #expect(found.category == category) }
                if category.clinicalType == nil {
                    let listed = try await view.contextResources(ofType: type, source: nil).map(\.resource.identifier)
                    #expect(listed.contains(id) == visible, "\(engine) \(category) \(states[category]!) \(id) by type")
                }
            }
        }
        // The person's own view is not filtered.
        for (_, type, id, _) in old + new {
            #expect(try await w.store.resource(RecordIdentity(source: "clinic", resourceType: type, identifier: id)) != nil)
        }
    }

    @Test(arguments: StoreEngine.all)
    func anAppWithOnlyVitalSignsReadsNoContextEvenFromItsOwnSource(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        let resources = Self.resources(suffix: "a")
        try await w.importResources(resources.map(\.3))
        let creds = try await w.consent.register(
            name: "Vitals", purpose: "Testing", privacyPolicyURL: URL(string: "https://example.org/privacy")!, requestedTypes: [.clinical(.vitalSign)])
        try await w.consent.decide(appID: creds.appID, AuthorizationDecision(allow: [.clinical(.vitalSign)], newData: .share))
        let view = try await w.consent.view(appID: creds.appID)
        for (category, type, id, _) in resources {
            let found = try await view.resource(RecordIdentity(source: "clinic", resourceType: type, identifier: id))
            #expect((found != nil) == (category == .clinical(.vitalSign)), "\(id)")
        }
        #expect(try await view.contextResources(ofType: "Patient", source: "clinic").isEmpty)
    }
}
