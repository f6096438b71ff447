import ClinicalRecords
import FHIR
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// What an app must not be able to do through `/fhir`: page with another app's token, forge or
/// alter one, find a hidden resource by guessing its served id, or tell hidden from missing.
@Suite struct FHIRAttackTests {
    @Test(arguments: ServerEngine.all)
    func anotherAppsNextTokenIsRefused(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        let other = try await f.world.register(FHIRWorld.requested, name: "Other")
        try await f.world.consent.decide(appID: other.appID, AuthorizationDecision(allow: FHIRWorld.allowed, newData: .share))
        try await f.world.test(.live) { client in
            let mine = try await client.token(f.app)
            let theirs = try await client.token(other)
            let first = try await client.fhir("/fhir/Observation?category=laboratory&_count=1", token: mine)
            let next = try #require(first.link("next"))
            #expect(try await client.fhir(next, token: mine).status == .ok)
            let stolen = try await client.fhir(next, token: theirs)
            #expect(stolen.status == .badRequest)
            #expect(stolen.issue?.code == "invalid" && stolen.issue?.diagnostics.hasPrefix("_page:") == true)
            #expect(stolen.headers[.contentType] == "application/fhir+json")
        }
    }

    @Test(arguments: ServerEngine.all)
    func alteredMadeUpOrMisplacedTokensAreRefused(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        try await f.world.test(.live) { client in
            let token = try await client.token(f.app)
            let next = try #require(try await client.fhir("/fhir/Observation?_count=1", token: token).link("next"))
            let page = String(next[next.range(of: "_page=")!.upperBound...])
            var bytes = Array(page.utf8)
            bytes[bytes.count / 2] = bytes[bytes.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            for bad in [String(decoding: bytes, as: UTF8.self), "nonsense", "", String(page.dropLast(3))] {
                let r = try await client.fhir("/fhir/Observation?_page=\(bad)", token: token)
                #expect(r.status == .badRequest, "\(bad)")
                #expect(r.issue?.code == "invalid")
            }
            // A token is for the search it came from: not another type's, not $everything's.
            #expect(try await client.fhir("/fhir/Condition?_page=\(page)", token: token).status == .badRequest)
            let person = try await f.personID()
            #expect(try await client.fhir("/fhir/Patient/\(person)/$everything?_page=\(page)", token: token).status == .badRequest)
        }
    }

    @Test(arguments: ServerEngine.all)
    func aGuessedServedIdOfAHiddenResourceIsTheSame404AsAMissingOne(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        try await f.world.test(.live) { client in
            let token = try await client.token(f.app)
            func notFound(_ type: String, _ id: String) async throws -> String {
                let r = try await client.fhir("/fhir/\(type)/\(id)", token: token)
                #expect(r.status == .notFound, "\(type)/\(id)")
                #expect(r.issue?.code == "not-found")
                return r.text.replacingOccurrences(of: id, with: "ID")
            }
            let missing = try await notFound("Immunization", String(repeating: "ab", count: 32))
            // Denied (immunization), undecided (nothing of it stored), DSTU2, another type's id, a provider's Patient.
            #expect(try await notFound("Immunization", f.servedID("clinic", .immunization, "i1")) == missing)
            #expect(try await notFound("Observation", f.servedID("legacy", .observation, "old1")) == missing.replacingOccurrences(of: "Immunization", with: "Observation"))
            #expect(try await notFound("Condition", f.servedID("clinic", .observation, "l1")) == missing.replacingOccurrences(of: "Immunization", with: "Condition"))
            #expect(try await notFound("Patient", f.servedID("clinic", .patient, "p1")) == missing.replacingOccurrences(of: "Immunization", with: "Patient"))
            #expect(try await notFound("Patient", "p1") == missing.replacingOccurrences(of: "Immunization", with: "Patient"))
            // The visible one is there.
            #expect(try await client.fhir("/fhir/Observation/\(f.servedID("clinic", .observation, "l1"))", token: token).status == .ok)
            // Searching for the hidden one by _id finds nothing either.
            let search = try await client.fhir("/fhir/Immunization?_id=\(f.servedID("clinic", .immunization, "i1"))", token: token)
            #expect(search.status == .ok && search.json["total"] as? Int == 0 && search.json["entry"] == nil)
        }
    }

    @Test(arguments: ServerEngine.all)
    func withoutALiveTokenEveryProtectedRouteIsA401OperationOutcome(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        try await f.world.test(.live) { client in
            let token = try await client.token(f.app)
            let person = try await f.personID()
            for path in ["/fhir/Observation", "/fhir/Observation/\(f.servedID("clinic", .observation, "l1"))", "/fhir/Patient/\(person)/$everything"] {
                for bad in [nil, "wrong", token + "x"] {
                    let r = try await client.fhir(path, token: bad)
                    #expect(r.status == .unauthorized, "\(path)")
                    #expect(r.issue?.code == "login")
                    #expect(r.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
                    #expect(r.headers[.contentType] == "application/fhir+json")
                }
            }
            // Revoking ends the token at its next use.
            _ = try await f.world.consent.revoke(appID: f.app.appID)
            #expect(try await client.fhir("/fhir/Observation", token: token).status == .unauthorized)
            // Discovery stays public.
            #expect(try await client.fhir("/fhir/metadata", token: nil).status == .ok)
        }
    }

    @Test(arguments: ServerEngine.all)
    func anotherPatientIsNoOnesData(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        try await f.world.test(.live) { client in
            let token = try await client.token(f.app)
            for value in ["p1", "Patient/p1", "Patient/\(f.servedID("clinic", .patient, "p1"))", "someone-else"] {
                let r = try await client.fhir("/fhir/Observation?patient=\(value)", token: token)
                #expect(r.status == .ok && r.json["total"] as? Int == 0 && r.json["entry"] == nil, "\(value)")
            }
            let person = try await f.personID()
            #expect(try await client.fhir("/fhir/Patient/someone-else/$everything", token: token).status == .notFound)
            #expect(try await client.fhir("/fhir/Observation?patient=Patient/\(person)", token: token).json["total"] as? Int == 6)
        }
    }
}
