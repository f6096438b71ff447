import Crypto
import FHIR
import Foundation
import JOSE
import SmartHealthCards
import VerifiableRecords

/// SMART Health Card verification: end to end (parse, inflate, JSON, ECDSA, FHIR extraction)
/// against the raw P-256 verify rate of the same crypto library, on one core and on all.
enum SHCBenchmark {
    struct Fixture: Sendable {
        let jws: String
        let verifier: SmartHealthCardVerifier
        let key: P256.Signing.PublicKey
        let precomputed: PrecomputedP256Key
        let signature: [UInt8]
        let input: [UInt8]
        let time = Date(timeIntervalSince1970: 1_688_169_600)
    }

    static func fixture() throws -> Fixture {
        let spec = SharedData.root.appendingPathComponent("vectors/shc-spec")
        let jws = String(decoding: try Data(contentsOf: spec.appendingPathComponent("example-00-d-jws.txt")), as: UTF8.self)
        let set = try JWKSet(data: Data(contentsOf: spec.appendingPathComponent("issuer/.well-known/jwks.json")))
        let crl = try RevocationList(data: Data(contentsOf: spec.appendingPathComponent("issuer/.well-known/crl/3Kfdg-XwP-7gXyywtUfUADwBumDOPKMQx-iELL11W9s.json")))
        let issuer = "https://spec.smarthealth.cards/examples/issuer"
        // The key set and revocation list are already cached: what is measured is per-card work.
        let keys = StaticKeySource(keySets: [issuer: set], revocationLists: [issuer: [crl.keyID: crl]])
        let parsed = try CompactJWS(jws)
        let key = try set.keys(withID: parsed.header.keyID!)[0].p256PublicKey()
        return Fixture(jws: jws, verifier: SmartHealthCardVerifier(keys: keys), key: key, precomputed: PrecomputedP256Key(key), signature: parsed.signature, input: Array(parsed.signingInput))
    }

    /// Operations per second of `body` over `seconds`.
    static func rate(seconds: Double, _ body: () async -> Void) async -> Double {
        var n = 0
        let start = Measure.now()
        let deadline = start + UInt64(seconds * 1e9)
        while Measure.now() < deadline {
            for _ in 0..<50 { await body() }
            n += 50
        }
        return Double(n) / (Double(Measure.now() - start) / 1e9)
    }

    static func raw(_ f: Fixture) {
        precondition(ES256.isValid(signature: f.signature, message: f.input, key: f.key))
    }

    static func precomputed(_ f: Fixture) {
        precondition(f.precomputed.isValidSignature(f.signature, for: f.input))
    }

    static func endToEnd(_ f: Fixture) async {
        let report = await f.verifier.verify(jws: f.jws, at: f.time)
        precondition(report.isValid && report.record?.itemNames.count == 3)
    }

    static func run() async throws {
        let f = try fixture()
        for _ in 0..<200 { await endToEnd(f) }
        // Interleave rounds so machine noise hits both sides alike; keep the best round of each.
        var rawBest = 0.0
        var e2eBest = 0.0
        var precomputedBest = 0.0
        for _ in 0..<5 {
            rawBest = max(rawBest, await rate(seconds: 1) { raw(f) })
            precomputedBest = max(precomputedBest, await rate(seconds: 1) { precomputed(f) })
            e2eBest = max(e2eBest, await rate(seconds: 1) { await endToEnd(f) })
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let parallel = await parallelRate(f, tasks: cores, seconds: 3)
        print("## SMART Health Card verification (spec example 00, key cached; best of 5 interleaved 1 s rounds)\n")
        print("| measure | per second | µs each |")
        print("|---|---|---|")
        print("| raw P-256 verify (swift-crypto) | \(fmt(rawBest, 0)) | \(fmt(1e6 / rawBest, 1)) |")
        print("| P-256 verify with the key precomputed (ours, the verifier's path for a key in use) | \(fmt(precomputedBest, 0)) | \(fmt(1e6 / precomputedBest, 1)) |")
        print("| end to end: parse + inflate + JSON + ECDSA + revocation + FHIR extraction | \(fmt(e2eBest, 0)) | \(fmt(1e6 / e2eBest, 1)) |")
        print("| end to end on \(cores) cores | \(fmt(parallel, 0)) | |")
        print("")
        print("End-to-end ÷ raw verify: **\(fmt(e2eBest / rawBest, 3))** (target ≥ 0.90). Scaling on \(cores) cores: \(fmt(parallel / e2eBest, 2))×.")
        print("End-to-end ÷ the precomputed-key verify it uses: \(fmt(e2eBest / precomputedBest, 3)) (everything but ECDSA costs \(fmt(1e6 / e2eBest - 1e6 / precomputedBest, 1)) µs a card).\n")
    }

    static func parallelRate(_ f: Fixture, tasks: Int, seconds: Double) async -> Double {
        await withTaskGroup(of: Double.self) { group in
            for _ in 0..<tasks {
                group.addTask { await rate(seconds: seconds) { await endToEnd(f) } }
            }
            var total = 0.0
            for await r in group { total += r }
            return total
        }
    }

    /// Only the end-to-end rate, best of five 1 s rounds, as a bare number (for scripts).
    static func printRate() async throws {
        let f = try fixture()
        for _ in 0..<200 { await endToEnd(f) }
        var best = 0.0
        for _ in 0..<5 { best = max(best, await rate(seconds: 1) { await endToEnd(f) }) }
        print(fmt(best, 1))
    }

    /// For instruction counters: a fixed number of end-to-end verifications.
    static func count(_ n: Int) async throws {
        let f = try fixture()
        for _ in 0..<n { await endToEnd(f) }
    }

    /// For profilers: end-to-end only, for 10 seconds.
    static func profile() async throws {
        let f = try fixture()
        let r = await rate(seconds: 10) { await endToEnd(f) }
        print("end to end: \(fmt(r, 0)) cards/s")
    }
}

extension SHCBenchmark {
    /// Per-phase costs of the verify pipeline, for finding where time goes.
    static func phases() async throws {
        let f = try fixture()
        let jws = try CompactJWS(f.jws)
        let inflated = try RawDeflate.inflate(jws.payload)
        var w: [VerificationIssue] = []
        let payload = try HealthCardPayload(bytes: inflated, warnings: &w)
        func us(_ name: String, _ body: () throws -> Void) rethrows {
            let n = 20_000
            let t = Measure.now()
            for _ in 0..<n { try body() }
            print(name, fmt(Double(Measure.now() - t) / 1e3 / Double(n), 2), "µs")
        }
        try us("CompactJWS parse") { _ = try CompactJWS(f.jws) }
        try us("inflate") { _ = try RawDeflate.inflate(jws.payload) }
        try us("payload JSON only") { _ = try JSONReader().read(inflated) }
        try us("payload JSON + claims") { var w: [VerificationIssue] = []; _ = try HealthCardPayload(bytes: inflated, warnings: &w) }
        us("bundle check") { _ = BundleMinimizationCheck.check(payload.tape, bundle: payload.bundleToken) }
        us("record") { _ = VerifiableClinicalRecord(payload: payload, jws: f.jws) }
        us("raw verify") { raw(f) }
        try us("all phases but ECDSA, in a row") {
            let j = try CompactJWS(f.jws)
            let inflated = try RawDeflate.inflate(j.payload)
            var w: [VerificationIssue] = []
            let p = try HealthCardPayload(bytes: inflated, warnings: &w)
            _ = BundleMinimizationCheck.check(p.tape, bundle: p.bundleToken)
            _ = VerifiableClinicalRecord(payload: p, jws: f.jws)
        }
        try us("all phases in a row, synchronously") {
            let j = try CompactJWS(f.jws)
            let inflated = try RawDeflate.inflate(j.payload)
            var w: [VerificationIssue] = []
            let p = try HealthCardPayload(bytes: inflated, warnings: &w)
            _ = BundleMinimizationCheck.check(p.tape, bundle: p.bundleToken)
            _ = VerifiableClinicalRecord(payload: p, jws: f.jws)
            raw(f)
        }
        let t = Measure.now()
        for _ in 0..<20_000 { await endToEnd(f) }
        print("end to end", fmt(Double(Measure.now() - t) / 1e3 / 20_000, 2), "µs")
    }
}

extension SHCBenchmark {
    static func jsonLoop() throws {
        let f = try fixture()
        let inflated = try RawDeflate.inflate(try CompactJWS(f.jws).payload)
        let t = Measure.now()
        for _ in 0..<1_000_000 { _ = try JSONReader().read(inflated) }
        print("json tree", fmt(Double(Measure.now() - t) / 1e3 / 1_000_000, 2), "µs")
        let t2 = Measure.now()
        for _ in 0..<1_000_000 { _ = try JSONTape(inflated) }
        print("json tape", fmt(Double(Measure.now() - t2) / 1e3 / 1_000_000, 2), "µs")
    }
}
