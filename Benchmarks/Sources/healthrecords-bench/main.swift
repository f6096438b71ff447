import CardScanning
import Foundation

// Usage: healthrecords-bench [all|import|query|cms|shc|dcc|inflate|deflate|shl] [--records N]
let args = CommandLine.arguments.dropFirst()
let what = args.first ?? "all"
let records = args.firstIndex(of: "--records").flatMap { Int(args[args.index(after: $0)]) } ?? 1_000_000

#if DEBUG
print("warning: this is a debug build; run `swift run -c release healthrecords-bench` for real figures\n")
#endif

@MainActor
func runBenchmarks() async throws {
    if what == "all" || what == "import" { try await ImportBenchmark.run() }
    if what == "import-only" {
        // For profilers: only the import work, 20 times.
        var n = 0
        let set = try ImportBenchmark.load("ndjson", "data/fhir/ndjson", "ndjson")
        let syn = try ImportBenchmark.load("synthea", "data/fhir/synthea", "json")
        for _ in 0..<4 {
            if CommandLine.arguments.contains("--ndjson") { _ = try await ImportBenchmark.importRuns(set, resources: &n) }
            if CommandLine.arguments.contains("--synthea") { _ = try await ImportBenchmark.importRuns(syn, resources: &n) }
        }
    }
    if what == "all" || what == "query" { try await QueryBenchmark.run(records: records, pageSize: 50) }
    if what == "all" || what == "cms" { try CMSBenchmark.run() }
    if what == "all" || what == "shc" { try await SHCBenchmark.run() }
    if what == "all" || what == "dcc" { try DCCBenchmark.run() }
    // Per-step costs of DCC verification, for finding where time goes.
    if what == "dcc-phases" { try DCCBenchmark.phases() }
    if what == "all" || what == "qr" { try QRBenchmark.run() }
    if what == "qr-encode-loop" {
        let jws = String(decoding: try Data(contentsOf: SharedData.root.appendingPathComponent("vectors/shc-spec/example-00-d-jws.txt")), as: UTF8.self)
        for _ in 0..<1000 { _ = try CardQRCode.encode(jws: jws) }
    }
    if what == "shc-only" { try await SHCBenchmark.profile() }
    if what == "shc-rate" { try await SHCBenchmark.printRate() }
    if what == "shc-count" { try await SHCBenchmark.count(2000) }
    if what == "shc-phases" { try await SHCBenchmark.phases() }
    if what == "json-loop" { try SHCBenchmark.jsonLoop() }
    if what == "all" || what == "inflate" { try InflateBenchmark.run() }
    if what == "all" || what == "deflate" { try DeflateBenchmark.run() }
    if what == "all" || what == "shl" { try await SHLBenchmark.run() }
    // For profilers: only our inflate, for 10 seconds.
    if what == "inflate-only" { try InflateBenchmark.profile(large: CommandLine.arguments.contains("--large")) }
    // For profilers: only CMS verification with signed attributes, for 10 seconds.
    if what == "cms-only" { try CMSBenchmark.run(secondsPerRound: 10, rounds: 1, only: "CMS verify, signed attributes") }
}

try await runBenchmarks()
