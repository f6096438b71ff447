import ClinicalRecords
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /records`, `GET /records/{source}/{resourceType}/{id}` and `GET /changes` through grants.
@Suite struct RecordQueryTests {
    /// A world with lab results, conditions and immunizations, and an app allowed labs and conditions.
    static func world(_ engine: ServerEngine) async throws -> (ServerWorld, AppCredentials) {
        let w = try await ServerWorld(engine)
        try await w.importResources([
            Fixtures.record(.labResult, id: "l1", text: "Glucose"), Fixtures.record(.labResult, id: "l2", text: "Hemoglobin A1c"),
            Fixtures.record(.condition, id: "c1", text: "Asthma"), Fixtures.record(.immunization, id: "i1"), Fixtures.patient,
        ], source: "clinic/north")
        let creds = try await w.register([.clinical(.labResult), .clinical(.condition), .clinical(.immunization), .context(.personalDetails)])
        try await w.consent.decide(
            appID: creds.appID, AuthorizationDecision(allow: [.clinical(.labResult), .clinical(.condition), .context(.personalDetails)], newData: .share))
        return (w, creds)
    }

    @Test(arguments: ServerEngine.all)
    func recordsCarryTheirResourceBytesWithDecimalsUntouched(engine: ServerEngine) async throws {
        let (w, creds) = try await Self.world(engine)
        try await w.test { client in
            let token = try await client.token(creds)
            let r = try await client.call(.get, "/records?type=lab-result", token: token)
            #expect(r.status == .ok)
            #expect(r.text.contains(#""valueQuantity":{"value":5.40,"unit":"mmol/L"}"#))
            let records = try r.object()["records"] as! [[String: Any]]
            #expect(records.map { $0["displayName"] as! String } == ["Glucose", "Hemoglobin A1c"])
            #expect(records[0]["source"] as? String == "clinic/north")
            #expect(records[0]["clinicalType"] as? String == "lab-result")
            #expect((records[0]["resource"] as? [String: Any])?["id"] as? String == "l1")
            let all = try await client.call(.get, "/records", token: token).object()["records"] as! [[String: Any]]
            #expect(Set(all.map { $0["clinicalType"] as! String }) == ["lab-result", "condition"])
        }
    }

    @Test(arguments: ServerEngine.all)
    func filtersLimitAndSortApply(engine: ServerEngine) async throws {
        let (w, creds) = try await Self.world(engine)
        try await w.test { client in
            let token = try await client.token(creds)
            func ids(_ query: String) async throws -> [String] {
                let r = try await client.call(.get, "/records?\(query)", token: token)
                #expect(r.status == .ok, "\(query): \(r.text)")
                return (try r.object()["records"] as! [[String: Any]]).map { $0["id"] as! String }
            }
            #expect(try await ids("resourceType=Condition") == ["c1"])
            #expect(try await ids("type=lab-result&limit=1") == ["l1"])
            #expect(try await ids("type=lab-result&sort=-added") == ["l2", "l1"])
            #expect(try await ids("from=2020-02-01&to=2020-02") == ["c1"])
            #expect(try await ids("source=clinic%2Fnorth&type=condition") == ["c1"])
            #expect(try await ids("source=elsewhere").isEmpty)
            // One date rule with the CLI: a date `to` includes its day, an instant `to` is exclusive.
            #expect(try await ids("type=lab-result&to=2020-03-01") == ["l1", "l2"])
            #expect(try await ids("type=lab-result&to=2020-03-01T00:00:00Z").isEmpty)
            #expect(try await ids("type=lab-result&from=2020-03-01T00:00:00Z&to=1583020801") == ["l1", "l2"])
            #expect(try await ids("type=condition&addedFrom=2000&addedTo=2100") == ["c1"])
            #expect(try await ids("type=condition&addedTo=2000").isEmpty)
            for bad in [
                "type=nonsense", "limit=-1", "sort=name", "from=yesterday", "resourceType=not%20a%20type", "from=2021&to=2020", "addedTo=soon",
                "type=condition&type=allergy", "to=2020-03-01T00:00:00Z&from=2020-03-01T00:00:00Z",
            ] {
                let r = try await client.call(.get, "/records?\(bad)", token: token)
                #expect(r.status == .badRequest, "\(bad)")
                #expect(try r.object()["error"] as? String == "invalid_request")
            }
        }
    }

    @Test(arguments: ServerEngine.all)
    func aRecordIsFoundByIdentityWithASlashInItsSource(engine: ServerEngine) async throws {
        let (w, creds) = try await Self.world(engine)
        try await w.test { client in
            let token = try await client.token(creds)
            let r = try await client.call(.get, "/records/clinic%2Fnorth/Observation/l2", token: token)
            #expect(r.status == .ok)
            #expect(try r.object()["displayName"] as? String == "Hemoglobin A1c")
            let patient = try await client.call(.get, "/records/clinic%2Fnorth/Patient/p1", token: token)
            #expect(patient.status == .ok)
            #expect(try patient.object()["clinicalType"] is NSNull)
            #expect(try patient.object()["category"] as? String == "personal-details")
            let denied = try await client.call(.get, "/records/clinic%2Fnorth/Immunization/i1", token: token)
            let missing = try await client.call(.get, "/records/clinic%2Fnorth/Immunization/nothing", token: token)
            #expect(denied.status == .notFound && missing.status == .notFound)
            #expect(denied.text == missing.text)
        }
    }

    @Test(arguments: ServerEngine.all)
    func changesReturnAddedAndDeletedRecordsWithAnAnchorToPassBack(engine: ServerEngine) async throws {
        let (w, creds) = try await Self.world(engine)
        try await w.test { client in
            let token = try await client.token(creds)
            let first = try await client.call(.get, "/changes?type=lab-result", token: token).object()
            #expect((first["added"] as! [[String: Any]]).map { $0["id"] as! String } == ["l1", "l2"])
            let anchor = first["anchor"] as! String
            let none = try await client.call(.get, "/changes?type=lab-result&anchor=\(anchor)", token: token).object()
            #expect((none["added"] as! [Any]).isEmpty && none["anchor"] as? String == anchor)
            try await w.importResources([Fixtures.record(.labResult, id: "l3")], source: "clinic/north")
            _ = try await w.store.delete(source: "clinic/north", resourceType: .observation, identifier: "l1")
            let next = try await client.call(.get, "/changes?type=lab-result&anchor=\(anchor)", token: token).object()
            #expect((next["added"] as! [[String: Any]]).map { $0["id"] as! String } == ["l3"])
            #expect((next["deleted"] as! [[String: Any]]).map { $0["id"] as! String } == ["l1"])
            #expect(next["anchor"] as? String != anchor)
            // Anchors are opaque; a cut page's anchor resumes where the page ended.
            let paged = try await client.call(.get, "/changes?type=lab-result&anchor=\(anchor)&limit=1", token: token).object()
            #expect((paged["added"] as! [Any]).count + (paged["deleted"] as! [Any]).count == 1)
            let pagedAnchor = paged["anchor"] as! String
            #expect(pagedAnchor != next["anchor"] as? String && pagedAnchor != anchor)
            let rest = try await client.call(.get, "/changes?type=lab-result&anchor=\(pagedAnchor)", token: token).object()
            #expect((rest["added"] as! [Any]).count + (rest["deleted"] as! [Any]).count == 1)
            #expect(rest["anchor"] as? String == next["anchor"] as? String)
            #expect(try await client.call(.get, "/changes?anchor=-3", token: token).status == .badRequest)
        }
    }
}
