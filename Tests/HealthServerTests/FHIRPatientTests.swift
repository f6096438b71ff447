import ClinicalRecords
import FHIR
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// The person is one Patient: the providers' Patients merged, under the person's id, shown
/// only when personal details are granted.
@Suite struct FHIRPatientTests {
    @Test(arguments: ServerEngine.all)
    func thePatientMergesEverySourcesIdentifiersAndNames(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        let person = try await f.personID()
        #expect(person.hasPrefix("person-") && FHIRResource.isValidIdentifier(person))
        try await f.world.test(.live) { client in
            let token = try await client.token(f.app)
            let r = try await client.fhir("/fhir/Patient/\(person)", token: token)
            #expect(r.status == .ok && r.headers[.contentType] == "application/fhir+json")
            let p = r.json
            #expect(p["resourceType"] as? String == "Patient" && p["id"] as? String == person)
            let identifiers = (p["identifier"] as? [[String: Any]] ?? []).map { "\($0["system"] as? String ?? "")|\($0["value"] as? String ?? "")" }
            #expect(identifiers == ["urn:clinic|111", "urn:hospital|222"])
            let names = (p["name"] as? [[String: Any]] ?? []).map { ($0["given"] as? [String] ?? []).joined(separator: " ") }
            #expect(names == ["Robin", "Rob"])
            #expect(p["gender"] as? String == "female" && p["birthDate"] as? String == "1980-05-06")
            #expect((p["telecom"] as? [[String: Any]])?.first?["value"] as? String == "555-0100")
            #expect((p["meta"] as? [String: Any])?["lastUpdated"] as? String == "2023-11-14T22:14:20.000Z")
            // No provider's id of the person is left ("person-" and hex hold no "p1").
            #expect(!r.text.contains("\"p1\"") && !r.text.contains("Patient/p1"))
        }
    }

    @Test(arguments: ServerEngine.all)
    func patientSearchesAnswerTheMergedPatient(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        let person = try await f.personID()
        try await f.world.test(.live) { client in
            let token = try await client.token(f.app)
            func total(_ query: String) async throws -> Int? {
                let r = try await client.fhir("/fhir/Patient?\(query)", token: token)
                #expect(r.status == .ok, "\(query): \(r.text)")
                return r.json["total"] as? Int
            }
            let all = try await client.fhir("/fhir/Patient", token: token)
            #expect(all.json["total"] as? Int == 1 && all.resources.first?["id"] as? String == person)
            #expect((all.json["entry"] as? [[String: Any]])?.first?["fullUrl"] as? String == "\(f.world.server.baseURL)/fhir/Patient/\(person)")
            #expect(try await total("_id=\(person)") == 1)
            #expect(try await total("_id=p1") == 0)
            #expect(try await total("identifier=urn:hospital|222") == 1)
            #expect(try await total("identifier=111") == 1)
            #expect(try await total("identifier=urn:x|222") == 0)
            #expect(try await total("name=rob") == 1)
            #expect(try await total("family=EXAM") == 1)
            #expect(try await total("name=zed") == 0)
            #expect(try await total("birthdate=1980&name=robin") == 1)
            #expect(try await total("birthdate=lt1980") == 0)
            #expect(try await total("gender=female") == 1)
            #expect(try await total("gender=male") == 0)
            #expect(try await total("_lastUpdated=ge2023-11-14") == 1)
        }
    }

    @Test(arguments: ServerEngine.all)
    func withoutPersonalDetailsThereIsNoPatientYetReferencesStillNameThePerson(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine, decide: false)
        try await f.world.consent.decide(
            appID: f.app.appID, AuthorizationDecision(allow: [.clinical(.labResult)], deny: [.context(.personalDetails)], newData: .share))
        let person = try await f.personID()
        try await f.world.test(.live) { client in
            let token = try await client.token(f.app)
            let read = try await client.fhir("/fhir/Patient/\(person)", token: token)
            let other = try await client.fhir("/fhir/Patient/person-0", token: token)
            #expect(read.status == .notFound && read.text.replacingOccurrences(of: person, with: "X") == other.text.replacingOccurrences(of: "person-0", with: "X"))
            let search = try await client.fhir("/fhir/Patient", token: token)
            #expect(search.json["total"] as? Int == 0 && search.json["entry"] == nil)
            let everything = try await client.fhir("/fhir/Patient/\(person)/$everything", token: token)
            #expect(everything.names == ["l1", "l2", "l3", "h1"])
            let lab = try await client.fhir("/fhir/Observation?category=laboratory&_count=1", token: token).resources[0]
            #expect((lab["subject"] as? [String: Any])?["reference"] as? String == "Patient/\(person)")
        }
    }
}
