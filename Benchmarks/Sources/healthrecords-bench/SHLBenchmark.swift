import ClinicalRecords
import Foundation
import HealthImport
import HealthStoreCore
import HealthStoreSQLite
import PatientSummary
import SmartHealthLinks

/// Sharing with a clinician, without the network: building the International Patient Summary of
/// a person with over 10,000 records (every Synthea patient's, as five providers sent them), and our raw AES-GCM and
/// AES-GCM + DEFLATE throughput on that summary as a link's file (encrypting and decrypting).
/// `Benchmarks/shl-wrk.sh` prints these beside the server's file and /healthz rates.
enum SHLBenchmark {
    static func run() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hr-bench-shl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let store = try await SQLiteHealthStore(path: dir.appendingPathComponent("store.sqlite").path)
        // The Synthea people as five providers sent them: over 10,000 records, each fact from
        // five sources (the summary lists it once).
        var records = 0
        for provider in 1...5 where records < 10_000 {
            var options = RecordImporter.Options()
            options.source = RecordSource(identifier: "provider-\(provider)")
            let report = await RecordImporter(store: store, options: options).importPaths(SharedData.files("data/fhir/synthea", "json").map(\.path))
            precondition(report.failed == 0, "the Synthea import failed")
            records = try await store.count(RecordQuery(type: nil))
        }
        var summary: PatientSummary?
        var times: [Double] = []
        for _ in 0..<5 {
            let start = Measure.now()
            summary = try await PatientSummaryBuilder(store: store).build()
            times.append(Double(Measure.now() - start) / 1e9)
        }
        let plaintext = summary!.data
        let entries = summary!.sections.reduce(0) { $0 + $1.count }
        print("## Sharing with a clinician (SMART Health Links, IPS)\n")
        print("SHL-SUMMARY records=\(records) entries=\(entries) bytes=\(plaintext.count) median_ms=\(fmt(Measure.median(times) * 1000, 1))")

        let key = SHLKey.random()
        let mb = Double(plaintext.count) / 1_000_000
        for compress in [false, true] {
            let jwe = try SHLFileEncryption.encrypt(plaintext, contentType: SHLContentType.fhirJSON, key: key, compress: compress)
            let encrypt = DeflateBenchmark.bestSeconds(rounds: 7, seconds: 0.2) {
                _ = try? SHLFileEncryption.encrypt(plaintext, contentType: SHLContentType.fhirJSON, key: key, compress: compress)
            }
            let decrypt = DeflateBenchmark.bestSeconds(rounds: 7, seconds: 0.2) { _ = try? SHLFileEncryption.decrypt(jwe, key: key) }
            let name = compress ? "aes-gcm+deflate" : "aes-gcm"
            print("SHL-CRYPTO \(name) jwe_bytes=\(jwe.utf8.count) encrypt_mb_s=\(fmt(mb / encrypt)) decrypt_mb_s=\(fmt(mb / decrypt))")
        }
        print("")
    }
}
