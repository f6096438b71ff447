import Foundation
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// Per-medication authorization over HTTP: the consent sheet lists the person's medications
/// unticked; the person ticks two of three and the app reads exactly those two — in the app
/// API's medication list and records, and in FHIR search and read.
@Suite struct MedicationConsentTests {
    static func statement(_ id: String, rxNorm: String, name: String) -> String {
        #"{"resourceType":"MedicationStatement","id":"\#(id)","status":"active","medicationCodeableConcept":{"coding":[{"system":"http://www.nlm.nih.gov/research/umls/rxnorm","code":"\#(rxNorm)","display":"\#(name)"}],"text":"\#(id)"},"effectiveDateTime":"2024-01-01"}"#
    }

    @Test(arguments: ServerEngine.plain)
    func theAppReadsExactlyTheTwoMedicationsTicked(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.importResources([
            Self.statement("metformin", rxNorm: "860975", name: "Metformin 500 MG"), Self.statement("lisinopril", rxNorm: "314076", name: "Lisinopril 10 MG"),
            Self.statement("sertraline", rxNorm: "312938", name: "Sertraline 50 MG"),
        ])
        try await w.importResources([Self.statement("metformin-refill", rxNorm: "860975", name: "Metformin 500 MG")], source: "pharmacy")
        let app = try await w.register([.clinical(.medication)], name: "Pill Reminder")
        let offered = try await w.consent.offeredMedications()
        let metformin = try #require(offered.first { $0.rxNormCodes == ["860975"] }).id
        let lisinopril = try #require(offered.first { $0.rxNormCodes == ["314076"] }).id
        let sertraline = try #require(offered.first { $0.rxNormCodes == ["312938"] }).id
        try await w.test { client in
            let token = try await client.token(app)
            let request = try await client.call(.post, "/authorization-requests", token: token, json: #"{"types":["medication"]}"#).object()
            let path = "/consent/\(request["id"] as! String)"
            let cookie = try await client.signIn()
            let (html, csrf) = try await client.page(path, cookie: cookie)
            for id in [metformin, lisinopril, sertraline] {
                #expect(html.contains(#"id="medication-\#(id)">"#), "\(id) offered, unticked")
            }
            #expect(html.contains("Sertraline 50 MG"))
            let form = "csrf=\(formEncoded(csrf))&allow=medication&medication=\(metformin)&medication=\(lisinopril)&medication=forged&newData=share&action=allow"
            #expect(try await client.call(.post, path, form: form, cookie: cookie).status == .ok)
            #expect(try await w.consent.medicationChoice(appID: app.appID) == [metformin, lisinopril])

            let list = try await client.call(.get, "/medications", token: token).object()["medications"] as? [[String: Any]] ?? []
            #expect(Set(list.compactMap { $0["id"] as? String }) == [metformin, lisinopril])
            #expect(list.first { $0["id"] as? String == metformin }.flatMap { ($0["records"] as? [Any])?.count } == 2)
            let records = try await client.call(.get, "/records?type=medication", token: token).object()["records"] as? [[String: Any]] ?? []
            #expect(Set(records.compactMap { ($0["resource"] as? [String: Any])?["id"] as? String }) == ["metformin", "metformin-refill", "lisinopril"])

            let search = try await client.fhir("/fhir/MedicationStatement", token: token)
            #expect(Set(search.resources.map(FHIRAnswer.name)) == ["metformin", "metformin-refill", "lisinopril"] && search.json["total"] as? Int == 3)
            let hidden = w.store.resourceKey(source: "clinic", resourceType: "MedicationStatement", identifier: "sertraline").hex
            let missing = String(repeating: "0", count: hidden.count)
            let a = try await client.fhir("/fhir/MedicationStatement/\(hidden)", token: token)
            let b = try await client.fhir("/fhir/MedicationStatement/\(missing)", token: token)
            #expect(a.status == .notFound && a.text.replacingOccurrences(of: hidden, with: missing) == b.text)

            // The sheet shows the pick when the app asks again.
            let again = try await client.call(.post, "/authorization-requests", token: token, json: #"{"types":["medication"]}"#).object()
            if let id = again["id"] as? String, again["status"] as? String == "pending" {
                let page = try await client.page("/consent/\(id)", cookie: cookie).html
                #expect(page.contains(#"id="medication-\#(metformin)" checked"#) && !page.contains(#"id="medication-\#(sertraline)" checked"#))
            }
        }
    }
}
