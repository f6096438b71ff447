import ClinicalRecords
import Foundation
import HealthStoreCore
import HummingbirdTesting
import Testing

@testable import HealthServer

/// Each of the person's pages reads the store in a small, fixed number of statements, whatever
/// the store holds: counted on a store with 10,000 records (and the same on a store with a
/// handful, so the bound is not just loose enough for this one size).
@Suite(.serialized) struct PageStatementsTests {
    static let loincCodes = (0..<40).map { "\(10_000 + $0)-\($0 % 10)" }

    /// `total` records: labs on 40 LOINC codes, vitals, and the other types, over ten years;
    /// one report whose 60 results are stored records.
    static func resources(_ total: Int) -> [String] {
        var out = [Fixtures.patient]
        let others: [ClinicalType] = [.allergy, .condition, .immunization, .medication, .procedure, .coverage, .clinicalNote]
        for i in 0..<total - 1 {
            let day = String(format: "20%02d-%02d-%02d", 14 + i % 10, 1 + i % 12, 1 + i % 28)
            switch i % 10 {
            case 0..<5:
                let code = loincCodes[i % loincCodes.count]
                out.append(#"{"resourceType":"Observation","id":"lab-\#(i)","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"laboratory"}]}],"code":{"coding":[{"system":"http://loinc.org","code":"\#(code)"}],"text":"Test \#(code)"},"effectiveDateTime":"\#(day)","valueQuantity":{"value":\#(4 + i % 7).\#(i % 10),"unit":"mmol/L"}}"#)
            case 5..<8:
                out.append(#"{"resourceType":"Observation","id":"vital-\#(i)","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"vital-signs"}]}],"code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}],"text":"Heart rate"},"effectiveDateTime":"\#(day)","valueQuantity":{"value":\#(60 + i % 40),"unit":"/min"}}"#)
            default:
                out.append(Fixtures.record(others[i % others.count], id: "other-\(i)"))
            }
        }
        let results = (0..<60).map { #"{"reference":"Observation/lab-\#($0 * 10)"}"# }.joined(separator: ",")
        out.append(#"{"resourceType":"DiagnosticReport","id":"panel","status":"final","category":[{"coding":[{"code":"LAB"}]}],"code":{"text":"Big panel"},"effectiveDateTime":"2024-01-01","result":[\#(results)]}"#)
        return out
    }

    /// The most statements each page may run (the session's lookup included; the timeline and
    /// the Apps page also ask whether an access review is due; the timeline's medications are one
    /// line per medication of the list: their records, Medications and notes).
    static func pages(trendKey: String) -> [(uri: String, bound: Int)] {
        [
            ("/", 7), ("/?type=lab-result", 3), ("/?type=medication", 5), ("/record?source=clinic&type=DiagnosticReport&id=panel", 3),
            ("/record?source=clinic&type=Observation&id=lab-0", 3), ("/trend?key=" + RecordPageRoutes.encode(trendKey), 3),
            ("/trend?key=sample%3Aheart-rate", 2), ("/summary", 3 + QuantityType.allCases.count), ("/search?q=Test", 3),
            ("/immunizations", 3), ("/cards", 2), ("/apps", 3), ("/providers", 2),
        ]
    }

    /// Statements each page ran, by page.
    static func count(records: Int, engine: ServerEngine) async throws -> [String: Int] {
        let w = try await ServerWorld(engine)
        let store = try #require(w.store as? DatabaseHealthStore)
        try await w.importResources(resources(records))
        let meter = RecordSource(identifier: "watch", name: "Watch")
        _ = try await store.saveSamples((0..<records / 10).map { i in
            try QuantitySample(type: .heartRate, value: "\(60 + i % 30)", unit: "/min", startDate: Date(timeIntervalSince1970: 1_600_000_000 + Double(i) * 600), source: meter)
        })
        #expect(try await store.count(RecordQuery(type: nil)) == records)
        return try await w.test { client in
            let cookie = try await client.signIn()
            // The services' first pass at start (access reviews, link sweeps) runs beside the
            // first page: wait until the store is quiet, so only a page's own statements count.
            for _ in 0..<50 {
                store.statements.start()
                try await Task.sleep(for: .milliseconds(100))
                if store.statements.stop() == 0 { break }
            }
            var counts: [String: Int] = [:]
            for (uri, _) in pages(trendKey: "loinc:" + loincCodes[0]) {
                store.statements.start()
                let page = try await client.call(.get, uri, cookie: cookie)
                counts[uri] = store.statements.stop()
                #expect(page.status == .ok, "\(uri): \(page.status)")
                if records >= 1_000, uri.hasPrefix("/record?source=clinic&type=DiagnosticReport") {
                    // The related records are there, linked: read in the one statement.
                    #expect(page.text.components(separatedBy: "/record?source=clinic&amp;type=Observation").count - 1 >= 60, "\(uri)")
                }
                if uri == "/" { #expect(page.text.contains("Test ") && page.text.contains("Heart rate")) }
            }
            return counts
        }
    }

    @Test(arguments: ServerEngine.plain)
    func everyPageReadsInAFixedNumberOfStatements(engine: ServerEngine) async throws {
        let large = try await Self.count(records: 10_000, engine: engine)
        let small = try await Self.count(records: 100, engine: engine)
        print("statements per page at 10,000 records:", large.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        for (uri, bound) in Self.pages(trendKey: "loinc:" + Self.loincCodes[0]) {
            let n = try #require(large[uri])
            // The session's lookup and at least one read of what the page shows.
            #expect(n >= 2 && n <= bound, "\(uri) ran \(n) statements at 10,000 records (at most \(bound))")
            #expect(n == small[uri], "\(uri) ran \(n) statements at 10,000 records and \(small[uri] ?? -1) at 100")
        }
    }
}
