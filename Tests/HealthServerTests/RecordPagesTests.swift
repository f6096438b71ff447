import ClinicalRecords
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// The person's record pages: a result with its value, unit, range and flag; its trend as an
/// SVG with one point per result; the summary; search by name and code, with filters and pages.
@Suite struct RecordPagesTests {
    static func glucose(_ id: String, _ date: String, _ value: String, interpretation: String? = nil) -> String {
        let flag = interpretation.map { #","interpretation":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation","code":"\#($0)"}]}]"# } ?? ""
        return #"""
            {"resourceType":"Observation","id":"\#(id)","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"laboratory"}]}],
             "code":{"coding":[{"system":"http://loinc.org","code":"2339-0","display":"Glucose [Mass/volume] in Blood"}]},
             "effectiveDateTime":"\#(date)","valueQuantity":{"value":\#(value),"unit":"mg/dL","system":"http://unitsofmeasure.org","code":"mg/dL"},
             "referenceRange":[{"low":{"value":70,"unit":"mg/dL"},"high":{"value":99,"unit":"mg/dL"}}],
             "performer":[{"display":"Acme Laboratory"}]\#(flag)}
            """#
    }

    static let report = #"""
        {"resourceType":"DiagnosticReport","id":"r1","status":"final","category":[{"coding":[{"code":"LAB"}]}],
         "code":{"text":"Metabolic panel"},"effectiveDateTime":"2021-03-01","result":[{"reference":"Observation/g3"},{"reference":"Observation/elsewhere","display":"Not here"}]}
        """#

    @Test(arguments: ServerEngine.all)
    func aResultsPageTrendSummaryAndSearch(engine: ServerEngine) async throws {
        let w = try await ServerWorld(engine)
        try await w.importResources([
            Self.glucose("g1", "2021-01-01", "88"), Self.glucose("g2", "2021-02-01", "104", interpretation: "H"), Self.glucose("g3", "2021-03-01", "95"),
            Self.report, Fixtures.record(.condition, id: "c1", text: "Asthma"),
        ])
        try await w.test { client in
            let cookie = try await client.signIn()
            let timeline = try await client.call(.get, "/", cookie: cookie).text
            #expect(timeline.contains("104 mg/dL") && timeline.contains(">High<"))
            let link = try #require(timeline.firstMatch(of: #/href="(/record\?source=clinic&amp;type=Observation&amp;id=g2)"/#)).output.1
            let page = try await client.call(.get, String(link).replacingOccurrences(of: "&amp;", with: "&"), cookie: cookie).text
            #expect(page.contains("104 mg/dL") && page.contains("70–99 mg/dL") && page.contains("High"))
            #expect(page.contains("2339-0") && page.contains("Glucose [Mass/volume] in Blood") && page.contains("LOINC"))
            #expect(page.contains("Acme Laboratory") && page.contains("<details") && page.contains("&quot;resourceType&quot;"))
            #expect(!page.contains("<script"))

            let report = try await client.call(.get, "/record?source=clinic&type=DiagnosticReport&id=r1", cookie: cookie).text
            #expect(report.contains("Related records") && report.contains("id=g3") && report.contains("95 mg/dL") && report.contains("Not here"))

            let trend = try await client.call(.get, "/trend?key=loinc%3A2339-0", cookie: cookie).text
            #expect(trend.ranges(of: #"<circle class="point"#).count == 3)
            #expect(trend.contains(#"class="range""#) && trend.contains("<title id=\"trend-title\">") && trend.contains("<desc id=\"trend-desc\">"))
            #expect(trend.contains("3 results from 2021-01-01 to 2021-03-01"))
            #expect(trend.contains("<table class=\"values\">") && trend.contains("104 mg/dL"))

            let summary = try await client.call(.get, "/summary", cookie: cookie).text
            #expect(summary.contains("Glucose [Mass/volume] in Blood") && summary.contains("95 mg/dL") && summary.contains("↓ down"))

            let byCode = try await client.call(.get, "/search?q=2339-0", cookie: cookie).text
            #expect(byCode.contains("3 record(s)") && byCode.contains("id=g1"))
            let byName = try await client.call(.get, "/search?q=asthma&category=condition", cookie: cookie).text
            #expect(byName.contains("1 record(s)") && byName.contains("Asthma"))
            let dated = try await client.call(.get, "/search?q=glucose&from=2021-02-01&to=2021-02-01", cookie: cookie).text
            #expect(dated.contains("1 record(s)") && dated.contains("id=g2"))
            let nothing = try await client.call(.get, "/search?q=zebra", cookie: cookie).text
            #expect(nothing.contains("Nothing matches"))
            #expect(try await client.call(.get, "/record?source=clinic&type=Observation&id=none", cookie: cookie).status == .notFound)
            #expect(try await client.call(.get, "/trend?key=loinc%3Anone", cookie: cookie).status == .notFound)
        }
    }

    @Test func aDevicesSamplesGetATrendToo() async throws {
        let w = try await ServerWorld(.sqlite)
        let meter = RecordSource(identifier: "meter", name: "Glucose meter")
        let samples = try (0..<5).map { k in
            try QuantitySample(type: .bloodGlucose, value: "\(100 + k * 3)", unit: "mg/dL", startDate: Date(timeIntervalSince1970: 1_700_000_000 + Double(k) * 86_400), source: meter)
        }
        _ = try await w.store.saveSamples(samples)
        try await w.test { client in
            let cookie = try await client.signIn()
            let summary = try await client.call(.get, "/summary", cookie: cookie).text
            #expect(summary.contains("Blood glucose (device)") && summary.contains("112 mg/dL") && summary.contains("↑ up"))
            let trend = try await client.call(.get, "/trend?key=sample%3Ablood-glucose", cookie: cookie).text
            #expect(trend.ranges(of: #"<circle class="point"#).count == 5)
        }
    }

    @Test func searchPagesThroughManyResults() async throws {
        let w = try await ServerWorld(.sqlite)
        try await w.importResources((0..<120).map { Self.glucose("p\($0)", "2020-01-\(String(format: "%02d", $0 % 28 + 1))", "\(80 + $0 % 30)") })
        try await w.test { client in
            let cookie = try await client.signIn()
            let first = try await client.call(.get, "/search?q=glucose", cookie: cookie).text
            #expect(first.contains("120 record(s)") && first.contains("Page 1 of 3") && first.contains("page=2"))
            #expect(first.ranges(of: "<li>").count == 50)
            let last = try await client.call(.get, "/search?q=glucose&page=3", cookie: cookie).text
            #expect(last.contains("Page 3 of 3") && last.ranges(of: "<li>").count == 20 && !last.contains("Next"))
        }
    }

    /// One medication (amlodipine) as a clinic's statement and a pharmacy's order, and a stopped
    /// Ibuprofen order known by name only.
    static func medicationWorld() async throws -> ServerWorld {
        let w = try await ServerWorld(.sqlite)
        let code = #"{"coding":[{"system":"http://www.nlm.nih.gov/research/umls/rxnorm","code":"197361","display":"amlodipine 5 MG Oral Tablet"}]}"#
        try await w.importResources([#"{"resourceType":"MedicationStatement","id":"s1","status":"active","medicationCodeableConcept":\#(code),"effectiveDateTime":"2020-01-01"}"#], source: "clinic")
        try await w.importResources([
            #"{"resourceType":"MedicationRequest","id":"r1","status":"active","intent":"order","medicationCodeableConcept":\#(code),"authoredOn":"2021-03-04"}"#,
            #"{"resourceType":"MedicationRequest","id":"r2","status":"stopped","intent":"order","medicationCodeableConcept":{"text":"Ibuprofen"},"authoredOn":"2019-05-06"}"#,
        ], source: "pharmacy")
        return w
    }

    /// The medication list page: a statement from one provider and an order from another for the
    /// same RxNorm code are one line naming both; a stopped one is listed apart.
    @Test func theMedicationsPageListsEachMedicationOnce() async throws {
        let w = try await Self.medicationWorld()
        try await w.test { client in
            let cookie = try await client.signIn()
            let html = try await client.page("/medication-list", cookie: cookie).html
            #expect(html.components(separatedBy: "amlodipine 5 MG Oral Tablet").count == 2, "\(html)")
            #expect(html.contains("clinic, pharmacy") && html.contains("2020-01-01 – 2021-03-04") && html.contains("RxNorm 197361"))
            #expect(html.contains("id=\"other-medications\"") && html.contains("Ibuprofen"))

            // A nickname and archiving, from the page's forms; the app API shows both.
            let list = try await w.store.annotatedMedications()
            let amlodipine = try #require(list.first { $0.entry.rxNormCodes == ["197361"] }).entry.id
            let csrf = try await client.page("/medication-list", cookie: cookie).csrf
            let token = "csrf=\(formEncoded(csrf))"
            #expect(try await client.call(.post, "/medication-list/\(amlodipine)", form: "action=nickname&nickname=Blood+pressure+pill", cookie: cookie).status == .forbidden)
            #expect(try await client.call(.post, "/medication-list/\(amlodipine)", form: token + "&action=nickname&nickname=Blood+pressure+pill", cookie: cookie).status == .seeOther)
            #expect(try await client.call(.post, "/medication-list/\(amlodipine)", form: token + "&action=archive", cookie: cookie).status == .seeOther)
            #expect(try await client.call(.post, "/medication-list/0000", form: token + "&action=archive", cookie: cookie).status == .notFound)
            let after = try await client.page("/medication-list", cookie: cookie).html
            let archived = try #require(after.range(of: "id=\"archived-medications\""))
            #expect(after[archived.upperBound...].contains("Blood pressure pill") && after.contains("restore-\(amlodipine)"))
            let app = try await w.allowedApp([.clinical(.medication)])
            let read = try await client.call(.get, "/medications", token: try await client.token(app)).object()["medications"] as? [[String: Any]] ?? []
            let entry = try #require(read.first { $0["id"] as? String == amlodipine })
            #expect(entry["nickname"] as? String == "Blood pressure pill" && entry["archived"] as? Bool == true)
            #expect(try await client.call(.post, "/medication-list/\(amlodipine)", form: token + "&action=restore", cookie: cookie).status == .seeOther)
            #expect(try await w.store.medicationNotes()[amlodipine] == MedicationNote(nickname: "Blood pressure pill", archived: false))
        }
    }

    /// The timeline lists each medication once: two providers' records of one medication are one
    /// line (its newest record, saying how many there are), named as the person named it;
    /// archived ones are left out.
    @Test func theTimelineShowsOneLinePerMedication() async throws {
        let w = try await Self.medicationWorld()
        let ibuprofen = try #require(try await w.store.annotatedMedications().first { $0.entry.name == "Ibuprofen" }).entry.id
        let amlodipine = try #require(try await w.store.annotatedMedications().first { $0.entry.rxNormCodes == ["197361"] }).entry.id
        try await w.store.saveMedicationNote(MedicationNote(nickname: "Blood pressure pill"), for: amlodipine)
        try await w.test { client in
            let cookie = try await client.signIn()
            for uri in ["/", "/?type=medication"] {
                let html = try await client.page(uri, cookie: cookie).html
                #expect(html.components(separatedBy: "amlodipine 5 MG Oral Tablet").count == 2, "\(uri): one line")
                #expect(html.contains("Blood pressure pill (amlodipine 5 MG Oral Tablet)") && html.contains("2 records from 2 providers"), "\(uri)")
                #expect(html.contains("Ibuprofen"), "\(uri)")
            }
            try await w.store.saveMedicationNote(MedicationNote(archived: true), for: ibuprofen)
            #expect(!(try await client.page("/?type=medication", cookie: cookie).html.contains("Ibuprofen")))
        }
    }
}
