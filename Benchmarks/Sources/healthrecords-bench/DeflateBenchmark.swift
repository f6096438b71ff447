import Deflate
import Foundation
import ZlibReference

/// DEFLATE compression: the pure-Swift `Compress` against system zlib, size and time, on every
/// SMART Health Card example payload (what issuing compresses: its size is QR code area) and on
/// a ~1 MB FHIR JSON file.
enum DeflateBenchmark {
    struct Input {
        let name: String
        let bytes: [UInt8]
    }

    static func inputs() throws -> [Input] {
        let payloads = ["vectors/shc-spec", "vectors/shc-hl7-ig"].flatMap { SharedData.files($0, "json") }
            .filter { $0.lastPathComponent.hasSuffix("-c-jws-payload-minified.json") }
        var inputs = try payloads.map { Input(name: $0.lastPathComponent.replacingOccurrences(of: "-c-jws-payload-minified.json", with: ""), bytes: Array(try Data(contentsOf: $0))) }
        inputs.append(Input(name: "all card payloads", bytes: inputs.flatMap(\.bytes)))
        let files = SharedData.files("data/fhir/synthea", "json")
        let sizes = try files.map { ($0, (try FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int) ?? 0) }
        let large = sizes.filter { $0.1 >= 1_000_000 }.min { $0.1 < $1.1 } ?? sizes.max { $0.1 < $1.1 }!
        inputs.append(Input(name: "\(large.0.lastPathComponent.prefix(20))…", bytes: Array(try Data(contentsOf: large.0))))
        return inputs
    }

    /// Best seconds per call over `rounds` rounds of about `seconds` each.
    static func bestSeconds(rounds: Int, seconds: Double, _ body: () -> Void) -> Double {
        let t = Measure.now()
        body()
        let iterations = max(1, Int(seconds / max(Double(Measure.now() - t) / 1e9, 1e-9)))
        var best = Double.infinity
        for _ in 0..<rounds {
            let start = Measure.now()
            for _ in 0..<iterations { body() }
            best = min(best, Double(Measure.now() - start) / 1e9 / Double(iterations))
        }
        return best
    }

    static func run(rounds: Int = 7, secondsPerRound: Double = 0.1) throws {
        let pairs: [(Compress.Level, Int32)] = [(.fast, 3), (.balanced, 6), (.best, 9)]
        print("## DEFLATE compression: pure-Swift Compress vs system zlib (raw, memLevel 8); best of \(rounds) rounds\n")
        print("| input | bytes | level | zlib bytes | ours bytes | ours/zlib | zlib µs | ours µs |")
        print("|---|---|---|---|---|---|---|---|")
        for input in try inputs() {
            for (level, zlibLevel) in pairs where level == .best || input.bytes.count > 100_000 || input.name == "all card payloads" {
                let ours = Compress.raw(input.bytes, level: level)
                let theirs = ZlibOracle.compress(input.bytes, level: zlibLevel)
                guard ZlibOracle.inflate(ours, limit: input.bytes.count) == .inflated(input.bytes) else {
                    throw InflateBenchmark.Failure.mismatch("zlib cannot read our \(level) stream of \(input.name)")
                }
                let zlibTime = bestSeconds(rounds: rounds, seconds: secondsPerRound) { _ = ZlibOracle.compress(input.bytes, level: zlibLevel) }
                let oursTime = bestSeconds(rounds: rounds, seconds: secondsPerRound) { _ = Compress.raw(input.bytes, level: level) }
                print("| \(input.name) | \(input.bytes.count) | \(level) / \(zlibLevel) | \(theirs.count) | \(ours.count) | "
                    + "\(fmt(Double(ours.count) / Double(theirs.count) * 100, 1)) % | \(fmt(zlibTime * 1e6, 1)) | \(fmt(oursTime * 1e6, 1)) |")
            }
        }
        print("")
    }
}
