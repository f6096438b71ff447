import ClinicalRecords
import FHIR
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// Reads carry `ETag` and `Last-Modified` and answer `If-None-Match`; `_history` and vread serve
/// the versions the store kept, each only when the app could read it (issue 30's FHIR basics).
@Suite struct FHIRHistoryTests {
    static func observation(_ category: String, value: String) -> String {
        #"{"resourceType":"Observation","id":"o1","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"\#(category)"}]}],"code":{"text":"o1 \#(value)"},"subject":{"reference":"Patient/p1"},"effectiveDateTime":"2020-01-01","valueQuantity":{"value":\#(value)}}"#
    }

    /// An Observation stored three times: first as a survey answer, then twice as a lab result;
    /// the app may read lab results only.
    static func world(_ engine: ServerEngine) async throws -> (ServerWorld, AppCredentials, String) {
        let w = try await ServerWorld(engine)
        try await w.importResources([#"{"resourceType":"Patient","id":"p1"}"#, observation("survey", value: "1")], source: "clinic")
        try await w.importResources([observation("laboratory", value: "2")], source: "clinic")
        try await w.importResources([observation("laboratory", value: "3")], source: "clinic")
        let app = try await w.register([.clinical(.labResult), .context(.personalDetails), .context(.otherObservations)], name: "History")
        try await w.consent.decide(
            appID: app.appID, AuthorizationDecision(allow: [.clinical(.labResult), .context(.personalDetails)], deny: [.context(.otherObservations)], newData: .share))
        return (w, app, w.store.resourceKey(source: "clinic", resourceType: .observation, identifier: "o1").hex)
    }

    @Test(arguments: ServerEngine.all)
    func readsCarryTheirVersionAndAnswerIfNoneMatch(engine: ServerEngine) async throws {
        let (w, app, id) = try await Self.world(engine)
        try await w.test(.live) { client in
            let token = try await client.token(app)
            let read = try await client.fhir("/fhir/Observation/\(id)", token: token)
            let version = try #require((read.json["meta"] as? [String: Any])?["versionId"] as? String)
            #expect(read.headers[.eTag] == "W/\"\(version)\"")
            let modified = try #require(read.headers[.lastModified])
            #expect(modified.hasSuffix(" GMT") && modified.count == 29, "\(modified)")
            for header in ["W/\"\(version)\"", "\"\(version)\"", "W/\"0\", W/\"\(version)\"", "*"] {
                let r = try await client.call(.get, "/fhir/Observation/\(id)", token: token, headers: [.ifNoneMatch: header])
                #expect(r.status == .notModified && r.body.readableBytes == 0 && r.headers[.eTag] == "W/\"\(version)\"", "\(header)")
            }
            let other = try await client.call(.get, "/fhir/Observation/\(id)", token: token, headers: [.ifNoneMatch: "W/\"0\""])
            #expect(other.status == .ok && other.text.contains("o1 3"))
            // A hidden resource is a 404 whatever the header.
            let person = try await w.store.personPatientID()
            #expect(try await client.call(.get, "/fhir/Observation/\(String(repeating: "0", count: id.count))", token: token, headers: [.ifNoneMatch: "*"]).status == .notFound)
            let patient = try await client.fhir("/fhir/Patient/\(person)", token: token)
            #expect(patient.headers[.eTag] == "W/\"\((patient.json["meta"] as? [String: Any])?["versionId"] as? String ?? "?")\"")
        }
    }

    @Test(arguments: ServerEngine.all)
    func historyAndVreadServeOnlyTheVersionsTheAppCouldRead(engine: ServerEngine) async throws {
        let (w, app, id) = try await Self.world(engine)
        try await w.test(.live) { client in
            let token = try await client.token(app)
            let history = try await client.fhir("/fhir/Observation/\(id)/_history", token: token)
            #expect(history.status == .ok && history.json["type"] as? String == "history", "\(history.status) \(history.text)")
            // The survey version is another category, denied to the app: it does not exist for it.
            #expect(history.names == ["o1 3", "o1 2"] && history.json["total"] as? Int == 2, "\(history.text)")
            let entries = try #require(history.json["entry"] as? [[String: Any]])
            let versions = history.resources.compactMap { ($0["meta"] as? [String: Any])?["versionId"] as? String }
            #expect(versions.count == 2 && versions[0] != versions[1])
            #expect(entries.allSatisfy { ($0["request"] as? [String: Any])?["method"] as? String == "PUT" })
            #expect(entries.allSatisfy { (($0["response"] as? [String: Any])?["lastModified"] as? String)?.hasSuffix("Z") == true })
            #expect(history.resources.allSatisfy { $0["id"] as? String == id })
            let old = try await client.fhir("/fhir/Observation/\(id)/_history/\(versions[1])", token: token)
            #expect(old.status == .ok && FHIRAnswer.name(old.json) == "o1 2" && old.headers[.eTag] == "W/\"\(versions[1])\"")
            #expect(FHIRAnswer.name(try await client.fhir("/fhir/Observation/\(id)/_history/\(versions[0])", token: token).json) == "o1 3")
            for missing in ["1", "0", "x", String(Int(versions[1])! - 1)] {
                #expect(try await client.fhir("/fhir/Observation/\(id)/_history/\(missing)", token: token).status == .notFound, "\(missing)")
            }
            // Scopes hold for history as for reads.
            let conditions = try #require(try await w.server.issueAccessToken(appID: app.appID, scope: "patient/Condition.rs"))
            #expect(try await client.fhir("/fhir/Observation/\(id)/_history", token: conditions).status == .notFound)
            #expect(try await client.fhir("/fhir/Observation/\(id)/_history/\(versions[0])", token: conditions).status == .notFound)
            let searchOnly = try #require(try await w.server.issueAccessToken(appID: app.appID, scope: "patient/Observation.s"))
            #expect(try await client.fhir("/fhir/Observation/\(id)/_history", token: searchOnly).status == .notFound)
            // The person's Patient is a merge: its history is its current form.
            let person = try await w.store.personPatientID()
            #expect(try await client.fhir("/fhir/Patient/\(person)/_history", token: token).json["total"] as? Int == 1)
        }
    }
}
