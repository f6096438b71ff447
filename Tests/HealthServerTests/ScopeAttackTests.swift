import ClinicalRecords
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// Review finding 1 of issue 28, as it was found: tokens from the real SMART flow, on a live
/// server, asking for one type and reading its category's other types, and resources contained
/// in a granted one.
@Suite struct ScopeAttackTests {
    static let resources: [String] = [
        #"{"resourceType":"Patient","id":"p1","name":[{"family":"Example"}]}"#,
        #"{"resourceType":"Goal","id":"g1","lifecycleStatus":"active","description":{"text":"walk daily"},"subject":{"reference":"Patient/p1"}}"#,
        #"{"resourceType":"ServiceRequest","id":"sr1","status":"active","intent":"order","code":{"text":"HIV-1 RNA viral load"},"subject":{"reference":"Patient/p1"}}"#,
        #"{"resourceType":"CarePlan","id":"cp1","status":"active","intent":"plan","subject":{"reference":"Patient/p1"}}"#,
        #"{"resourceType":"Provenance","id":"pv1","target":[{"reference":"Goal/g1"}],"recorded":"2024-01-01T00:00:00Z","agent":[{"who":{"display":"clinic"}}]}"#,
        #"{"resourceType":"Communication","id":"cm1","status":"completed","subject":{"reference":"Patient/p1"},"payload":[{"contentString":"your HIV test came back positive"}]}"#,
        #"{"resourceType":"FamilyMemberHistory","id":"f1","status":"completed","patient":{"reference":"Patient/p1"},"relationship":{"text":"mother"},"condition":[{"code":{"text":"BRCA1"}}]}"#,
        #"{"resourceType":"QuestionnaireResponse","id":"q1","status":"completed","subject":{"reference":"Patient/p1"},"item":[{"linkId":"phq9","answer":[{"valueInteger":3}]}]}"#,
        #"{"resourceType":"Observation","id":"o-survey","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"survey"}]}],"code":{"text":"o-survey"},"subject":{"reference":"Patient/p1"}}"#,
        #"{"resourceType":"Observation","id":"o-exam","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"exam"}]}],"code":{"text":"o-exam"},"subject":{"reference":"Patient/p1"}}"#,
        // A prescription carrying its medication and its reason inside it.
        ##"{"resourceType":"MedicationRequest","id":"mr1","status":"active","intent":"order","contained":[{"resourceType":"Medication","id":"med","code":{"text":"emtricitabine/tenofovir"}},{"resourceType":"Condition","id":"why","code":{"text":"HIV infection"},"subject":{"reference":"Patient/p1"}}],"medicationReference":{"reference":"#med","display":"emtricitabine/tenofovir"},"subject":{"reference":"Patient/p1"},"reasonReference":[{"reference":"#why","display":"HIV infection"}]}"##,
    ]

    /// Runs the SMART flow for `scope`, the person allowing every category offered; the token.
    static func token(_ w: ServerWorld, _ client: some TestClientProtocol, scope: String) async throws -> String {
        let app = try await SMARTFlowTests.publicClient(w, name: "Scoped \(UUID().uuidString.prefix(6))")
        let cookie = try await client.signIn()
        let all = ConsentCategory.allCases.map(\.rawValue)
        let answer = try await SMARTFlowTests.consent(client, SMARTFlowTests.authorizeQuery(w, client: app, scope: scope), cookie: cookie, allow: all)
        let r = try await SMARTFlowTests.exchange(client, code: try #require(answer["code"]), app: app)
        #expect(try r.object()["scope"] as? String == scope)
        return try #require(try r.object()["access_token"] as? String)
    }

    static func types(_ a: FHIRAnswer) -> [String] { a.resources.compactMap { $0["resourceType"] as? String } }

    @Test func aScopeReadsTheTypesItNamesNotItsCategory() async throws {
        let w = try await ServerWorld(.sqlite)
        try await w.importResources(Self.resources, source: "clinic")
        let person = try await w.store.personPatientID()
        let id: @Sendable (String, String) -> String = { type, name in w.store.resourceKey(source: "clinic", resourceType: .init(type), identifier: name).hex }
        try await w.test(.live) { client in
            let goal = try await Self.token(w, client, scope: "patient/Goal.rs")
            #expect(Self.types(try await client.fhir("/fhir/Patient/\(person)/$everything", token: goal)) == ["Goal"])
            #expect(try await client.fhir("/fhir/ServiceRequest/\(id("ServiceRequest", "sr1"))", token: goal).status == .notFound)
            #expect(try await client.fhir("/fhir/CarePlan", token: goal).json["total"] as? Int == 0)

            let provenance = try await Self.token(w, client, scope: "patient/Provenance.rs")
            #expect(try await client.fhir("/fhir/Communication", token: provenance).json["total"] as? Int == 0)
            #expect(try await client.fhir("/fhir/FamilyMemberHistory/\(id("FamilyMemberHistory", "f1"))", token: provenance).status == .notFound)
            let all = try await client.fhir("/fhir/Patient/\(person)/$everything", token: provenance)
            #expect(Self.types(all) == ["Provenance"] && !all.text.contains("HIV") && !all.text.contains("BRCA1"))

            let survey = try await Self.token(w, client, scope: "patient/Observation.rs?category=survey")
            #expect(try await client.fhir("/fhir/Observation", token: survey).names == ["o-survey"])
            #expect(try await client.fhir("/fhir/QuestionnaireResponse", token: survey).json["total"] as? Int == 0)
            #expect(try await client.fhir("/fhir/Observation/\(id("Observation", "o-exam"))", token: survey).status == .notFound)
            #expect(try await client.fhir("/fhir/Patient/\(person)/$everything", token: survey).names == ["o-survey"])
        }
    }

    /// The server keeps what a scope string reaches once it repeats: tokens whose scopes differ,
    /// used in turn until both are kept, each still reach their own types and no others.
    @Test func keptReachesStayWithTheirScopes() async throws {
        let w = try await ServerWorld(.sqlite)
        try await w.importResources(Self.resources, source: "clinic")
        let person = try await w.store.personPatientID()
        try await w.test(.live) { client in
            let goal = try await Self.token(w, client, scope: "patient/Goal.rs")
            let plan = try await Self.token(w, client, scope: "patient/CarePlan.rs patient/Goal.rs")
            for _ in 0..<4 {
                #expect(Self.types(try await client.fhir("/fhir/Patient/\(person)/$everything", token: goal)) == ["Goal"])
                #expect(Self.types(try await client.fhir("/fhir/Patient/\(person)/$everything", token: plan)).sorted() == ["CarePlan", "Goal"])
                #expect(try await client.fhir("/fhir/CarePlan", token: goal).json["total"] as? Int == 0)
                #expect(try await client.fhir("/fhir/CarePlan", token: plan).json["total"] as? Int == 1)
            }
        }
    }

    @Test func containedResourcesAreServedOnlyWhenTheyCouldBeReadOnTheirOwn() async throws {
        let w = try await ServerWorld(.sqlite)
        try await w.importResources(Self.resources, source: "clinic")
        let mr = w.store.resourceKey(source: "clinic", resourceType: .init("MedicationRequest"), identifier: "mr1").hex
        try await w.test(.live) { client in
            // The prescription's type only: neither the Medication nor the Condition is in scope.
            let narrow = try await Self.token(w, client, scope: "patient/MedicationRequest.rs")
            let bare = try await client.fhir("/fhir/MedicationRequest/\(mr)", token: narrow)
            #expect(bare.status == .ok && bare.json["contained"] == nil, "\(bare.status) \(bare.text.prefix(300))")
            #expect(!bare.text.contains("HIV") && !bare.text.contains("tenofovir") && !bare.text.contains("#why") && !bare.text.contains("#med"))
            let masked = try #require(bare.json["medicationReference"] as? [String: Any])
            let reason = (masked["extension"] as? [[String: Any]])?.first
            #expect(reason?["url"] as? String == "http://hl7.org/fhir/StructureDefinition/data-absent-reason" && reason?["valueCode"] as? String == "masked")
            #expect((bare.json["reasonReference"] as? [[String: Any]])?.count == 1)
            #expect(bare.json["id"] as? String == mr && (bare.json["meta"] as? [String: Any])?["lastUpdated"] != nil)

            // With Medication in scope the medication comes along; the reason still does not.
            let wider = try await Self.token(w, client, scope: "patient/MedicationRequest.rs patient/Medication.rs")
            for uri in ["/fhir/MedicationRequest/\(mr)", "/fhir/MedicationRequest"] {
                let answer = try await client.fhir(uri, token: wider)
                let served = uri.hasSuffix(mr) ? answer.json : try #require(answer.resources.first)
                let contained = try #require(served["contained"] as? [[String: Any]])
                #expect(contained.map { $0["id"] as? String } == ["med"])
                #expect((served["medicationReference"] as? [String: Any])?["reference"] as? String == "#med")
                #expect(!answer.text.contains("HIV") && !answer.text.contains("#why"))
            }

            // Every type in scope: what the person allowed decides, and a client-credentials
            // token of an app denied conditions is told nothing of the reason either.
            let everything = try await Self.token(w, client, scope: "patient/*.rs")
            let full = try await client.fhir("/fhir/MedicationRequest/\(mr)", token: everything)
            #expect((full.json["contained"] as? [[String: Any]])?.count == 2 && full.text.contains("#why"))
        }
        let partial = try await w.register([.clinical(.medication), .context(.medicationDetails), .clinical(.condition)], name: "Meds only")
        try await w.consent.decide(
            appID: partial.appID, AuthorizationDecision(allow: [.clinical(.medication), .context(.medicationDetails)], deny: [.clinical(.condition)]))
        try await w.test(.live) { client in
            let token = try await client.token(partial)
            let answer = try await client.fhir("/fhir/MedicationRequest/\(mr)", token: token)
            #expect((answer.json["contained"] as? [[String: Any]])?.map { $0["id"] as? String } == ["med"])
            #expect(!answer.text.contains("HIV"))
        }
    }
}
