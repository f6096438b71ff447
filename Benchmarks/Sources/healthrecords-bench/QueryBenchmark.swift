import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import HealthStoreSQLite

/// First-page latency of a type query over a store of a million generated records.
enum QueryBenchmark {
    static let types: [(ClinicalType, String)] = [
        (.labResult, #"{"resourceType":"Observation","id":"ID","status":"final","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"laboratory"}]}],"code":{"coding":[{"system":"http://loinc.org","code":"2339-0","display":"Glucose"}]},"subject":{"reference":"Patient/p1"},"effectiveDateTime":"DATE","valueQuantity":{"value":5.40,"unit":"mmol/L","system":"http://unitsofmeasure.org","code":"mmol/L"}}"#),
        (.vitalSign, #"{"resourceType":"Observation","id":"ID","status":"final","category":[{"coding":[{"code":"vital-signs"}]}],"code":{"coding":[{"system":"http://loinc.org","code":"8867-4","display":"Heart rate"}]},"effectiveDateTime":"DATE","valueQuantity":{"value":72,"unit":"/min"}}"#),
        (.immunization, #"{"resourceType":"Immunization","id":"ID","status":"completed","vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"140"}]},"occurrenceDateTime":"DATE"}"#),
        (.condition, #"{"resourceType":"Condition","id":"ID","code":{"coding":[{"system":"http://snomed.info/sct","code":"44054006","display":"Diabetes"}]},"onsetDateTime":"DATE"}"#),
    ]

    static func run(records: Int, pageSize: Int) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hr-bench-query-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try await SQLiteHealthStore(path: dir.appendingPathComponent("store.sqlite").path)
        let builder = RecordBuilder()
        let genStart = Measure.now()
        let batch = 20_000
        var made = 0
        while made < records {
            var items: [ClassifiedResource] = []
            items.reserveCapacity(batch)
            for k in made..<min(records, made + batch) {
                let (_, template) = types[k % types.count]
                let day = String(format: "20%02d-%02d-%02d", 10 + k % 15, 1 + k % 12, 1 + k % 28)
                let text = template.replacingOccurrences(of: "ID", with: "r\(k)").replacingOccurrences(of: "DATE", with: day)
                items.append(try builder.classify(try FHIRResource(data: Data(text.utf8))))
            }
            made += items.count
            _ = try await store.importResources(source: RecordSource(identifier: "generated-\((made / batch) % 10)"), from: ResourceList(items))
        }
        let genSeconds = Double(Measure.now() - genStart) / 1e9
        print("## RecordQuery first page at \(records) records (page of \(pageSize), \(fmt(genSeconds, 0)) s to generate)\n")
        print("| query | runs | median ms | p99 ms |")
        print("|---|---|---|---|")
        let queries: [(String, RecordQuery)] = [
            ("lab-result, oldest added first", RecordQuery(type: .labResult, limit: pageSize)),
            ("immunization, newest clinical date first", RecordQuery(type: .immunization, limit: pageSize, sort: RecordSort(.clinical, ascending: false))),
            ("vital-sign from one source", RecordQuery(type: .vitalSign, predicate: .source("generated-4"), limit: pageSize)),
        ]
        for (name, q) in queries {
            for _ in 0..<50 { _ = try await store.records(q) }  // warm the page cache
            var times: [Double] = []
            for _ in 0..<1000 {
                let t = Measure.now()
                let page = try await store.records(q)
                times.append(Double(Measure.now() - t) / 1e6)
                precondition(page.count == pageSize)
            }
            print("| \(name) | \(times.count) | \(fmt(Measure.median(times), 3)) | \(fmt(Measure.percentile(times, 0.99), 3)) |")
        }
        print("")
    }
}
