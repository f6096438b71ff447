import ClinicalRecords
import FHIR
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /fhir/{type}?…` and `GET /fhir/{type}/{id}`: each search parameter, date prefixes,
/// paging parameters, served ids, rewritten references and exact decimals.
@Suite struct FHIRSearchTests {
    @Test(arguments: ServerEngine.all)
    func observationSearchesByCategoryCodeAndPatient(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        let person = try await f.personID()
        try await f.world.test(.live) { client in
            let token = try await client.token(f.app)
            func names(_ query: String) async throws -> [String] {
                let r = try await client.fhir("/fhir/\(query)", token: token)
                #expect(r.status == .ok, "\(query): \(r.text)")
                #expect(r.headers[.contentType] == "application/fhir+json")
                #expect(r.json["resourceType"] as? String == "Bundle" && r.json["type"] as? String == "searchset")
                #expect(r.json["total"] as? Int == r.names.count, "\(query)")
                return r.names
            }
            #expect(try await names("Observation?patient=\(person)&category=laboratory") == ["l1", "l2", "l3", "h1"])
            #expect(try await names("Observation?patient=Patient/\(person)&category=http://terminology.hl7.org/CodeSystem/observation-category|laboratory") == ["l1", "l2", "l3", "h1"])
            #expect(try await names("Observation?category=vital-signs") == ["v1"])
            #expect(try await names("Observation?category=survey") == ["s1"])
            #expect(try await names("Observation?category=laboratory,vital-signs") == ["l1", "l2", "l3", "v1", "h1"])
            #expect(try await names("Observation?category=laboratory,survey") == ["l1", "l2", "l3", "s1", "h1"])
            #expect(try await names("Observation?category=laboratory&category=vital-signs").isEmpty)
            #expect(try await names("Observation?category=http://example.org/other|laboratory").isEmpty)
            #expect(try await names("Observation?code=http://loinc.org|4548-4") == ["l2"])
            #expect(try await names("Observation?code=4548-4") == ["l2"])
            #expect(try await names("Observation?code=|4548-4").isEmpty)
            #expect(try await names("Observation?code=http://loinc.org|") == ["l1", "l2", "l3", "v1", "h1"])
            #expect(try await names("Observation?patient=\(person)&category=laboratory&code=2339-0,4548-4") == ["l1", "l2", "l3", "h1"])
            #expect(try await names("Observation?status=final&category=vital-signs") == ["v1"])
            #expect(try await names("Condition?patient=\(person)") == ["c1", "c2"])
            #expect(try await names("Condition?patient=\(person)&category=problem-list-item") == ["c1"])
            #expect(try await names("Condition?category=http://terminology.hl7.org/CodeSystem/condition-category|encounter-diagnosis") == ["c2"])
            #expect(try await names("Condition?clinical-status=active") == ["c1"])
            #expect(try await names("Condition?code=http://snomed.info/sct|195967001") == ["c1"])
            #expect(try await names("Condition?onset-date=ge2021") == ["c2"])
            #expect(try await names("DiagnosticReport?patient=\(person)&category=LAB") == ["r1"])
            #expect(try await names("DiagnosticReport?category=http://terminology.hl7.org/CodeSystem/v2-0074|LAB&date=2020-03") == ["r1"])
            #expect(try await names("DiagnosticReport?category=RAD").isEmpty)
            #expect(try await names("Encounter?patient=\(person)&class=AMB") == ["e1"])
        }
    }

    @Test(arguments: ServerEngine.all)
    func datePrefixesCompareSpansAtTheirPrecision(engine: ServerEngine) async throws {
        // l3 is 2019 (a year), l1 2020-03-01 (a day), l2 2021-06-15T08:30:00Z, h1 2022-02-02T09:00:00Z.
        let f = try await FHIRWorld(engine)
        try await f.world.test(.live) { client in
            let token = try await client.token(f.app)
            func names(_ date: String) async throws -> [String] {
                let r = try await client.fhir("/fhir/Observation?category=laboratory&\(date)&_sort=date", token: token)
                #expect(r.status == .ok, "\(date): \(r.text)")
                return r.names
            }
            #expect(try await names("date=2020") == ["l1"])
            #expect(try await names("date=eq2020-03-01") == ["l1"])
            #expect(try await names("date=ge2020-03-01") == ["l1", "l2", "h1"])
            #expect(try await names("date=gt2020-03-01") == ["l2", "h1"])
            #expect(try await names("date=lt2020-03-01") == ["l3"])
            #expect(try await names("date=le2020-03-01") == ["l3", "l1"])
            #expect(try await names("date=ne2020-03-01") == ["l3", "l2", "h1"])
            #expect(try await names("date=sa2020") == ["l2", "h1"])
            #expect(try await names("date=eb2020") == ["l3"])
            // A year is not within June, yet reaches above it and below it.
            #expect(try await names("date=eq2019-06").isEmpty)
            #expect(try await names("date=ge2019-06") == ["l3", "l1", "l2", "h1"])
            #expect(try await names("date=le2019-06") == ["l3"])
            #expect(try await names("date=ge2020&date=lt2022") == ["l1", "l2"])
            #expect(try await names("date=ge2022-02-02T10:00:00%2B01:00") == ["h1"])
            #expect(try await names("date=gt2022-02-02T10:00:00+01:00").isEmpty)
            #expect(try await names("date=2021-06-15T08:30:00Z") == ["l2"])
            // The added date is when the store first added it (the clinic at 22:13:20, the hospital a minute later).
            #expect(try await names("_lastUpdated=ge2023-11-14T22:14:00Z") == ["h1"])
            #expect(try await names("_lastUpdated=lt2023-11-14T22:14:00Z") == ["l3", "l1", "l2"])
            #expect(try await names("_lastUpdated=2023-11-14") == ["l3", "l1", "l2", "h1"])
            for bad in ["date=xx2020", "date=2020-13", "date=2020,2021", "date=ap2020", "_lastUpdated=yesterday"] {
                let r = try await client.fhir("/fhir/Observation?\(bad)", token: token)
                let name = String(bad.prefix { $0 != "=" }), value = String(bad.drop { $0 != "=" }.dropFirst())
                #expect(r.status == .badRequest, "\(bad)")
                #expect(r.issue?.code == "invalid" && r.issue?.diagnostics.hasPrefix("\(name): \"\(value)\"") == true, "\(r.text)")
            }
        }
    }

    @Test(arguments: ServerEngine.all)
    func sortCountIdAndUnknownParameters(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        try await f.world.test(.live) { client in
            let token = try await client.token(f.app)
            let labs = "/fhir/Observation?category=laboratory"
            #expect(try await client.fhir("\(labs)&_sort=date", token: token).names == ["l3", "l1", "l2", "h1"])
            #expect(try await client.fhir("\(labs)&_sort=-date", token: token).names == ["h1", "l2", "l1", "l3"])
            #expect(try await client.fhir("\(labs)&_sort=-_lastUpdated", token: token).names.first == "h1")
            #expect(try await client.fhir("/fhir/Condition?_sort=-onset-date", token: token).names == ["c2", "c1"])
            let two = try await client.fhir("\(labs)&_count=2", token: token)
            #expect(two.names == ["l1", "l2"] && two.json["total"] as? Int == 4 && two.link("next") != nil)
            let none = try await client.fhir("\(labs)&_count=0", token: token)
            #expect(none.json["total"] as? Int == 4 && none.json["entry"] == nil && none.link("next") == nil)
            let ids = [f.servedID("clinic", .observation, "l1"), f.servedID("hospital", .observation, "h1")]
            #expect(try await client.fhir("/fhir/Observation?_id=\(ids.joined(separator: ","))", token: token).names == ["l1", "h1"])
            #expect(try await client.fhir("/fhir/Observation?_id=l1", token: token).names.isEmpty)
            // Unknown parameters are ignored, and left out of the self link.
            let lenient = try await client.fhir("\(labs)&foo=bar&_summary=false&_count=3", token: token)
            #expect(lenient.names == ["l1", "l2", "l3"])
            let selfLink = try #require(lenient.link("self"))
            #expect(selfLink.hasSuffix("/fhir/Observation?category=laboratory&_count=3") && selfLink.hasPrefix("http://127.0.0.1:"))
            for (bad, name) in [("_sort=name", "_sort"), ("_count=-1", "_count"), ("_count=many", "_count"), ("code:text=x", "code:text"), ("code=a|b|c", "code")] {
                let r = try await client.fhir("\(labs)&\(bad)", token: token)
                #expect(r.status == .badRequest, "\(bad)")
                #expect(r.issue?.diagnostics.hasPrefix("\(name): ") == true, "\(r.text)")
            }
            for path in ["/fhir/Nonsense", "/fhir/Nonsense/1", "/fhir/MedicationOrder"] {
                let r = try await client.fhir(path, token: token)
                #expect(r.status == .notFound && r.issue?.code == "not-found", "\(path)")
            }
            #expect(try await client.fhir("/fhir", token: token).status == .badRequest)
        }
    }

    @Test(arguments: ServerEngine.all)
    func theCountIsCapped(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine) { $0.limits.maxRecordsPerQuery = 2 }
        try await w.importResources((1...3).map { FHIRWorld.lab("x\($0)", date: "2020-01-0\($0)") })
        let app = try await w.register([.clinical(.labResult)])
        try await w.consent.decide(appID: app.appID, AuthorizationDecision(allow: [.clinical(.labResult)], newData: .share))
        try await w.test(.live) { client in
            let token = try await client.token(app)
            let r = try await client.fhir("/fhir/Observation?_count=5000", token: token)
            #expect(r.names == ["x1", "x2"] && r.json["total"] as? Int == 3 && r.link("next") != nil)
            #expect(try await client.fhir("/fhir/Observation", token: token).names.count == 2)
        }
    }

    @Test(arguments: ServerEngine.all)
    func resourcesAreServedUnderServedIdsWithReferencesRewrittenAndDecimalsExact(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        let person = try await f.personID()
        try await f.world.test(.live) { client in
            let token = try await client.token(f.app)
            let port = try #require(client.port)
            let base = "http://127.0.0.1:\(port)/fhir"
            let search = try await client.fhir("/fhir/Observation?category=laboratory", token: token)
            let l1 = f.servedID("clinic", .observation, "l1")
            let entry = try #require((search.json["entry"] as? [[String: Any]])?.first)
            #expect(entry["fullUrl"] as? String == "\(base)/Observation/\(l1)")
            #expect((entry["search"] as? [String: Any])?["mode"] as? String == "match")
            let resource = entry["resource"] as! [String: Any]
            #expect(resource["id"] as? String == l1)
            #expect((resource["meta"] as? [String: Any])?["lastUpdated"] as? String == "2023-11-14T22:13:20.000Z")
            #expect((resource["subject"] as? [String: Any])?["reference"] as? String == "Patient/\(person)")
            #expect((resource["encounter"] as? [String: Any])?["reference"] as? String == "Encounter/\(f.servedID("clinic", "Encounter", "e1"))")
            #expect(search.text.contains(#""valueQuantity":{"value":5.40,"unit":"mmol/L"}"#))
            #expect(search.text.contains(#""valueQuantity":{"value":7.25,"unit":"mmol/L"}"#))
            // The hospital's Patient was a urn:uuid; it is the person too.
            let h1 = try #require(search.resources.first { FHIRAnswer.name($0) == "h1" })
            #expect((h1["subject"] as? [String: Any])?["reference"] as? String == "Patient/\(person)")
            // A read gives the same bytes as the search entry; a referenced resource is readable.
            let read = try await client.call(.get, "/fhir/Observation/\(l1)", token: token)
            #expect(read.status == .ok && read.headers[.contentType] == "application/fhir+json")
            let bytes = read.text
            #expect(search.text.contains(#""resource":"# + bytes))
            // meta gets this server's version (the read's ETag) before the date it was first added.
            let version = try #require(read.headers[.eTag]).dropFirst(3).dropLast()
            #expect(bytes.hasPrefix(#"{"resourceType":"Observation","id":"\#(l1)","meta":{"versionId":"\#(version)","lastUpdated":"2023-11-14T22:13:20.000Z"},"status":"final""#))
            let report = try await client.fhir("/fhir/DiagnosticReport?category=LAB", token: token).resources[0]
            let result = ((report["result"] as? [[String: Any]])?.first?["reference"] as? String) ?? ""
            #expect(result == "Observation/\(l1)")
            #expect(try await client.fhir("/fhir/\(result)", token: token).status == .ok)
            #expect(FHIRAnswer.name(try await client.fhir("/fhir/Encounter/\(f.servedID("clinic", "Encounter", "e1"))", token: token).json) == "e1")
        }
    }

    @Test(arguments: ServerEngine.all)
    func searchWorksAsAPostToo(engine: ServerEngine) async throws {
        let f = try await FHIRWorld(engine)
        try await f.world.test(.live) { client in
            let token = try await client.token(f.app)
            let r = try await client.call(.post, "/fhir/Observation/_search", token: token, form: "category=laboratory&code=4548-4")
            #expect(r.status == .ok)
            #expect(try r.object()["total"] as? Int == 1)
        }
    }
}
