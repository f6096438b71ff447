import FHIR
import Foundation
import HealthStoreCore
import HummingbirdTesting
import Testing

/// `GET /fhir/Patient/{id}/$summary`: the International Patient Summary of what the app may read.
@Suite struct FHIRSummaryTests {
    static func sections(_ answer: FHIRAnswer) -> [String: [String: Any]] {
        let entries = answer.json["entry"] as? [[String: Any]] ?? []
        let composition = entries.first?["resource"] as? [String: Any] ?? [:]
        var out: [String: [String: Any]] = [:]
        for section in composition["section"] as? [[String: Any]] ?? [] {
            let code = ((section["code"] as? [String: Any])?["coding"] as? [[String: Any]])?.first?["code"] as? String ?? ""
            out[code] = section
        }
        return out
    }

    static func types(_ answer: FHIRAnswer) -> [String] {
        (answer.json["entry"] as? [[String: Any]] ?? []).compactMap { ($0["resource"] as? [String: Any])?["resourceType"] as? String }
    }

    @Test(arguments: ServerEngine.plain)
    func anAppsSummaryHoldsOnlyWhatItMayRead(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        let person = try await f.personID()
        try await f.world.test { client in
            let token = try await client.token(f.app)
            let r = try await client.fhir("/fhir/Patient/\(person)/$summary", token: token)
            #expect(r.status == .ok)
            #expect(r.json["resourceType"] as? String == "Bundle" && r.json["type"] as? String == "document")
            let sections = Self.sections(r)
            // Allowed: conditions (c1 active, c2 without a clinical status: both current problems),
            // labs, vital signs.
            #expect((sections["11450-4"]?["entry"] as? [Any])?.count == 2)
            #expect(sections["30954-2"]?["entry"] != nil && sections["8716-3"]?["entry"] != nil)
            // Immunizations are denied: the section is not there, as for a person who has none.
            #expect(sections["11369-6"] == nil && !Self.types(r).contains("Immunization"))
            // Required but never allowed (allergies, medications): empty, saying why.
            #expect(sections["48765-2"]?["emptyReason"] != nil && sections["10160-0"]?["emptyReason"] != nil)
            #expect(Self.types(r).first == "Composition" && Self.types(r).filter { $0 == "Patient" }.count == 1)

            // Another person's id is not found; the operation is advertised.
            #expect(try await client.fhir("/fhir/Patient/someone-else/$summary", token: token).status == .notFound)
            let metadata = try await client.fhir("/fhir/metadata", token: nil).text
            #expect(metadata.contains("ips/OperationDefinition/summary"))
        }
    }

    /// A token whose scopes name only Observations gets no problems in its summary, though its
    /// grants allow them.
    @Test func scopesNarrowTheSummary() async throws {
        let f = try await FHIRWorld(.sqlite)
        let person = try await f.personID()
        let token = try #require(try await f.world.server.issueAccessToken(appID: f.app.appID, scope: "patient/Observation.rs patient/Patient.rs"))
        try await f.world.test { client in
            let r = try await client.fhir("/fhir/Patient/\(person)/$summary", token: token)
            #expect(r.status == .ok)
            let sections = Self.sections(r)
            #expect(sections["11450-4"]?["emptyReason"] != nil && !Self.types(r).contains("Condition"))
            #expect(sections["30954-2"]?["entry"] != nil)
        }
    }
}
