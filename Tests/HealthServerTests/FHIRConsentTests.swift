import ClinicalRecords
import FHIR
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// Consent through `/fhir`: denied and undecided look like no data, "ask" hides unapproved
/// records, a token's scopes narrow the grants, and DSTU2 stays out of the R4 base.
@Suite struct FHIRConsentTests {
    /// The searches and reads compared between an app's answers and an empty store's.
    static func answers(_ w: ServerWorld, _ creds: AppCredentials) async throws -> [String] {
        let person = try await w.store.personPatientID()
        // Served ids of encrypted stores differ between stores: compare them by name.
        let i1 = w.store.resourceKey(source: "clinic", resourceType: .immunization, identifier: "i1").hex
        return try await w.test(.live) { client in
            let token = try await client.token(creds)
            var out: [String] = []
            for uri in [
                "/fhir/Immunization", "/fhir/Immunization?patient=\(person)&date=ge2020", "/fhir/Immunization?vaccine-code=207",
                "/fhir/Immunization/\(i1)", "/fhir/Procedure?patient=\(person)", "/fhir/Observation?category=laboratory&_count=1",
            ] {
                let r = try await client.fhir(uri, token: token)
                let line = "\(uri) \(r.status.code) \(r.text.replacingOccurrences(of: "\(client.port ?? 0)", with: "PORT"))"
                out.append(line.replacingOccurrences(of: person, with: "PERSON").replacingOccurrences(of: i1, with: "I1"))
            }
            return out
        }
    }

    @Test(arguments: ServerEngine.all)
    func deniedAndUndecidedCategoriesAnswerAsAnEmptyStoreDoes(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        try await f.world.importResources([FHIRWorld.lab("later", date: "2020-01-01")], source: "clinic")
        let types: Set<HealthDataType> = [.clinical(.immunization), .clinical(.procedure), .clinical(.labResult)]
        let denied = try await f.world.register(types, name: "Denied")
        try await f.world.consent.decide(appID: denied.appID, AuthorizationDecision(allow: [], deny: types))
        let undecided = try await f.world.register(types, name: "Undecided")

        let empty = try await ServerWorld(engine)
        let allowed = try await empty.register(types, name: "Allowed")
        try await empty.consent.decide(appID: allowed.appID, AuthorizationDecision(allow: types, newData: .share))
        let baseline = try await Self.answers(empty, allowed)
        #expect(baseline[0].hasPrefix("/fhir/Immunization 200 {\"resourceType\":\"Bundle\",\"type\":\"searchset\",\"total\":0,"))
        #expect(baseline[3].contains(" 404 ") && baseline[3].contains("OperationOutcome"))
        #expect(try await Self.answers(f.world, denied) == baseline)
        #expect(try await Self.answers(f.world, undecided) == baseline)
    }

    @Test(arguments: ServerEngine.all)
    func aCategoryUnderAskShowsOnlyApprovedRecords(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine, decide: false)
        try await f.world.consent.decide(appID: f.app.appID, AuthorizationDecision(allow: [.clinical(.labResult)], newData: .ask))
        try await f.world.importResources([FHIRWorld.lab("unapproved", date: "2020-01-01")], source: "clinic")
        let unapproved = f.servedID("clinic", .observation, "unapproved")
        try await f.world.test(.live) { client in
            let token = try await client.token(f.app)
            let search = try await client.fhir("/fhir/Observation?category=laboratory", token: token)
            #expect(search.names == ["l1", "l2", "l3", "h1"] && search.json["total"] as? Int == 4)
            #expect(try await client.fhir("/fhir/Observation/\(unapproved)", token: token).status == .notFound)
            #expect(try await client.fhir("/fhir/Observation?_id=\(unapproved)", token: token).json["total"] as? Int == 0)
            _ = try await f.world.consent.approveNewData(appID: f.app.appID)
            #expect(try await client.fhir("/fhir/Observation?category=laboratory", token: token).names == ["l1", "l2", "l3", "h1", "unapproved"])
            #expect(try await client.fhir("/fhir/Observation/\(unapproved)", token: token).status == .ok)
        }
    }

    @Test(arguments: ServerEngine.all)
    func aTokensScopesNarrowWhatTheGrantsAllow(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        let person = try await f.personID()
        let scoped = try #require(
            try await f.world.server.issueAccessToken(appID: f.app.appID, scope: "patient/Observation.rs?category=vital-signs patient/Immunization.rs"))
        try await f.world.test(.live) { client in
            #expect(try await client.fhir("/fhir/Observation", token: scoped).names == ["v1"])
            #expect(try await client.fhir("/fhir/Observation?category=laboratory", token: scoped).json["total"] as? Int == 0)
            #expect(try await client.fhir("/fhir/Observation?category=vital-signs,laboratory", token: scoped).names == ["v1"])
            // Scopes never widen: immunizations stay denied.
            #expect(try await client.fhir("/fhir/Immunization", token: scoped).json["total"] as? Int == 0)
            #expect(try await client.fhir("/fhir/Observation/\(f.servedID("clinic", .observation, "l1"))", token: scoped).status == .notFound)
            #expect(try await client.fhir("/fhir/Patient/\(person)", token: scoped).status == .notFound)
            #expect(try await client.fhir("/fhir/Patient/\(person)/$everything", token: scoped).names == ["v1"])
            let page = try #require(try await client.fhir("/fhir/Observation?_count=1", token: try await client.token(f.app)).link("next"))
            // A page token from the wider token pages only what the narrower one may see.
            #expect(try await client.fhir(page, token: scoped).names.allSatisfy { $0 == "v1" })
        }
    }

    @Test(arguments: ServerEngine.all)
    func dstu2ResourcesAreLeftOutOfTheR4Base(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        let old = f.servedID("legacy", .observation, "old1")
        try await f.world.test(.live) { client in
            let token = try await client.token(f.app)
            #expect(!(try await client.fhir("/fhir/Observation", token: token).names.contains("old1")))
            #expect(try await client.fhir("/fhir/Observation?date=2015", token: token).json["total"] as? Int == 0)
            #expect(try await client.fhir("/fhir/Observation/\(old)", token: token).status == .notFound)
            #expect(try await client.fhir("/fhir/Observation?_id=\(old)", token: token).json["total"] as? Int == 0)
            // The app API still serves it as stored.
            let records = try await client.call(.get, "/records?source=legacy", token: token).object()["records"] as? [[String: Any]]
            #expect(records?.map { $0["fhirVersion"] as? String } == ["1.0.2"])
        }
    }
}
