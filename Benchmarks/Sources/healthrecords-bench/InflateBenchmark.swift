import Deflate
import Foundation
import SmartHealthCards
import ZlibReference

/// Raw DEFLATE inflate: the pure-Swift `Deflate` module against system zlib (a reused, reset
/// `z_stream` per thread, `ZlibOracle.inflateReusingStream`), on a SMART Health Card payload and on a ~1 MB FHIR
/// JSON file compressed at zlib levels 9 and 1.
enum InflateBenchmark {
    struct Case {
        let name: String
        let compressed: [UInt8]
        let inflatedSize: Int
    }

    enum Failure: Error, CustomStringConvertible {
        case mismatch(String)
        var description: String {
            switch self { case .mismatch(let name): return "the two inflaters disagree on \(name)" }
        }
    }

    static func cases() throws -> [Case] {
        let spec = SharedData.root.appendingPathComponent("vectors/shc-spec")
        let jws = String(decoding: try Data(contentsOf: spec.appendingPathComponent("example-00-d-jws.txt")), as: UTF8.self)
        let payload = try CompactJWS(jws.trimmingCharacters(in: .whitespacesAndNewlines)).payload
        let files = SharedData.files("data/fhir/synthea", "json")
        let sizes = try files.map { ($0, (try FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int) ?? 0) }
        let large = sizes.filter { $0.1 >= 1_000_000 }.min { $0.1 < $1.1 } ?? sizes.max { $0.1 < $1.1 }!
        let json = Array(try Data(contentsOf: large.0))
        let cardSize = try RawDeflate.inflate(payload).count
        return [
            Case(name: "SHC example 00 payload", compressed: payload, inflatedSize: cardSize),
            Case(name: "\(large.0.lastPathComponent.prefix(20))… level 9", compressed: ZlibOracle.compress(json, level: 9, memLevel: 9), inflatedSize: json.count),
            Case(name: "\(large.0.lastPathComponent.prefix(20))… level 1", compressed: ZlibOracle.compress(json, level: 1, memLevel: 9), inflatedSize: json.count),
        ]
    }

    /// Seconds per call of `body`, the best of `rounds` rounds of about `seconds` each.
    static func bestSecondsPerCall(_ iterationsPerRound: Int, _ body: () throws -> Void) rethrows -> Double {
        let t = Measure.now()
        for _ in 0..<iterationsPerRound { try body() }
        return Double(Measure.now() - t) / 1e9 / Double(iterationsPerRound)
    }

    static func run(rounds: Int = 25, secondsPerRound: Double = 0.1) throws {
        print("## Raw DEFLATE inflate: pure-Swift Deflate vs system zlib (reused z_stream); best of \(rounds) interleaved rounds\n")
        print("| input | in bytes | out bytes | zlib µs | ours µs | zlib MB/s | ours MB/s | speedup |")
        print("|---|---|---|---|---|---|---|---|")
        for c in try cases() {
            let ours = try Inflate.raw(c.compressed, limit: c.inflatedSize)
            let theirs = ZlibOracle.inflateReusingStream(c.compressed, limit: c.inflatedSize)
            guard theirs == .inflated(ours), ours.count == c.inflatedSize else { throw Failure.mismatch(c.name) }
            // Calibrate the iterations per round from one timed call.
            let probe = try bestSecondsPerCall(3) { _ = try Inflate.raw(c.compressed, limit: c.inflatedSize) }
            let iterations = max(1, Int(secondsPerRound / max(probe, 1e-9)))
            var bestOurs = Double.infinity
            var bestZlib = Double.infinity
            for _ in 0..<rounds {
                bestZlib = min(bestZlib, bestSecondsPerCall(iterations) {
                    _ = ZlibOracle.inflateReusingStream(c.compressed, limit: c.inflatedSize)
                })
                bestOurs = min(bestOurs, try bestSecondsPerCall(iterations) {
                    _ = try Inflate.raw(c.compressed, limit: c.inflatedSize)
                })
            }
            let mb = Double(c.inflatedSize) / 1e6
            print("| \(c.name) | \(c.compressed.count) | \(c.inflatedSize) | \(fmt(bestZlib * 1e6, 2)) | \(fmt(bestOurs * 1e6, 2)) | "
                + "\(fmt(mb / bestZlib, 0)) | \(fmt(mb / bestOurs, 0)) | **\(fmt(bestZlib / bestOurs, 2))×** |")
        }
        print("\nTargets: ≥ 2.5× on the card payload, ≥ 1.5× on the large file.\n")
    }

    /// For profilers: only our inflate of the card payload (or the large file with `--large`), for 10 seconds.
    static func profile(large: Bool) throws {
        let c = try cases()[large ? 1 : 0]
        let deadline = Measure.now() + 10_000_000_000
        var n = 0
        while Measure.now() < deadline {
            for _ in 0..<100 { _ = try Inflate.raw(c.compressed, limit: c.inflatedSize) }
            n += 100
        }
        print("\(n / 10) inflates/s")
    }
}
