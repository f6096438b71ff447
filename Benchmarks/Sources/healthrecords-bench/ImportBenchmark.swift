import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthStoreCore
import HealthStoreSQLite

/// Import throughput next to the cost of only parsing the same bytes with Foundation.
enum ImportBenchmark {
    struct DataSet {
        let name: String
        let files: [URL]
        let documents: [Data]  // whole files, or NDJSON lines
        let bytes: Int
    }

    static func load(_ name: String, _ rel: String, _ ext: String) throws -> DataSet {
        let files = SharedData.files(rel, ext)
        var docs: [Data] = []
        var bytes = 0
        for f in files {
            let d = try Data(contentsOf: f)
            bytes += d.count
            if ext == "ndjson" {
                docs += d.split(separator: 0x0A).filter { !$0.isEmpty }.map { Data($0) }
            } else {
                docs.append(d)
            }
        }
        return DataSet(name: name, files: files, documents: docs, bytes: bytes)
    }

    static func run() async throws {
        print("## Import throughput (release build, fresh SQLite store per run, median of 5 runs)\n")
        print("| data set | resources | MB | import resources/s | import MB/s | JSONSerialization parse only MB/s | our JSON reader parse only MB/s | import ÷ parse-only |")
        print("|---|---|---|---|---|---|---|---|")
        for set in [try load("Synthea R4 (15 bundles)", "data/fhir/synthea", "json"), try load("NDJSON bulk export", "data/fhir/ndjson", "ndjson")] {
            var resources = 0
            let importTimes = try await importRuns(set, resources: &resources)
            let foundation = try Measure.seconds(runs: 5) {
                for d in set.documents { _ = try JSONSerialization.jsonObject(with: d) }
            }
            let ours = try Measure.seconds(runs: 5) {
                for d in set.documents { _ = try JSONReader().read(d) }
            }
            let mb = Double(set.bytes) / 1e6
            let t = Measure.median(importTimes)
            let f = Measure.median(foundation)
            let o = Measure.median(ours)
            print("| \(set.name) | \(resources) | \(fmt(mb)) | \(fmt(Double(resources) / t, 0)) | \(fmt(mb / t)) | \(fmt(mb / f)) | \(fmt(mb / o)) | \(fmt(f / t, 2)) |")
        }
        print("")
    }

    static func importRuns(_ set: DataSet, resources: inout Int) async throws -> [Double] {
        var times: [Double] = []
        for _ in 0..<5 {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hr-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: dir) }
            let store = try await SQLiteHealthStore(path: dir.appendingPathComponent("store.sqlite").path)
            let importer = RecordImporter(store: store)
            let start = Measure.now()
            let report = await importer.importPaths(set.files.map(\.path))
            times.append(Double(Measure.now() - start) / 1e9)
            precondition(report.failed == 0, "import failed: \(report.files.filter { $0.status == .failed }.map(\.path))")
            let t = report.totals
            resources = t.inserted + t.updated + t.unchanged + t.notRecords
        }
        return times
    }
}
