import TestSupport
import CZlib
import Deflate
import Testing
import ZlibReference

/// Hostile input: bombs stop at the limit, and random or mutated streams never crash or hang;
/// whatever zlib accepts we inflate identically, whatever zlib rejects we reject.
@Suite struct RobustnessTests {
    /// Checks one input against zlib's raw inflate.
    private func agreesWithZlib(_ input: [UInt8], limit: Int, _ context: @autoclosure () -> String) {
        let oracle = ZlibOracle.inflate(input, limit: limit)
        do {
            let ours = try Inflate.raw(input, limit: limit)
            #expect(ours.count <= limit)
            #expect(oracle == .inflated(ours), "zlib rejects what we accept: \(context())")
        } catch {
            #expect(oracle == .failed, "zlib accepts what we reject (\(error)): \(context())")
        }
    }

    @Test func stopsAnInflateBombAtTheLimit() throws {
        let bomb = ZlibOracle.compress([UInt8](repeating: 0, count: 10 << 20), level: 9)
        #expect(bomb.count < 20_000)
        #expect(throws: InflateError.outputTooLarge(limit: 1 << 20)) { try Inflate.raw(bomb, limit: 1 << 20) }
        // Also with stored and fixed blocks, and with a limit of zero.
        let stored = ZlibOracle.compress([UInt8](repeating: 1, count: 200_000), level: 0)
        #expect(throws: InflateError.outputTooLarge(limit: 100_000)) { try Inflate.raw(stored, limit: 100_000) }
        let fixed = ZlibOracle.compress([UInt8](repeating: 2, count: 200_000), level: 9, strategy: Z_FIXED)
        #expect(throws: InflateError.outputTooLarge(limit: 65_536)) { try Inflate.raw(fixed, limit: 65_536) }
        #expect(throws: InflateError.outputTooLarge(limit: 0)) { try Inflate.raw(ZlibOracle.compress([1]), limit: 0) }
    }

    @Test func acceptsOutputOfExactlyTheLimitAtEverySize() throws {
        for count in [1, 2, 255, 256, 279, 280, 281, 1_000, 4_095, 4_096, 4_097, 65_536, 300_001] {
            let data = TestData.text(count, seed: UInt64(count))
            let stream = ZlibOracle.compress(data, level: 6)
            #expect(try Inflate.raw(stream, limit: count) == data)
            #expect(throws: InflateError.outputTooLarge(limit: count - 1)) { try Inflate.raw(stream, limit: count - 1) }
        }
    }

    @Test func acceptsOutputOfExactlyTheLimitWhenTheOutputHadToGrow() throws {
        // Highly compressible data outgrows the first guess (4× the input), so the output grows,
        // possibly ending exactly at the limit right where the room runs out.
        var g = SplitMix64(seed: 99)
        for _ in 0..<300 {
            let count = 1_000 + Int(g.next() % 20_000)
            let data = TestData.runs(count, seed: g.next())
            let stream = ZlibOracle.compress(data, level: 9)
            #expect(try Inflate.raw(stream, limit: count) == data, "\(count) bytes")
            #expect(throws: InflateError.outputTooLarge(limit: count - 1)) { try Inflate.raw(stream, limit: count - 1) }
        }
    }

    @Test func neverCrashesOnRandomBytes() {
        var g = SplitMix64(seed: 0xDEF1A7E)
        for i in 0..<4_000 {
            let count = Int(g.next() % 300)
            var input = TestData.randomBytes(count, seed: g.next())
            // Bias a third towards Huffman blocks, which otherwise mostly fail in the header.
            if i % 3 == 0, !input.isEmpty { input[0] = (input[0] & ~0b110) | (i % 2 == 0 ? 0b010 : 0b100) }
            agreesWithZlib(input, limit: 50_000, "random input #\(i) \(input)")
        }
    }

    @Test func neverCrashesOnSingleByteMutationsOfValidStreams() {
        var g = SplitMix64(seed: 42)
        let sources: [(String, [UInt8])] = [
            ("text level 9", ZlibOracle.compress(TestData.text(2_000, seed: 1), level: 9)),
            ("text level 1", ZlibOracle.compress(TestData.text(2_000, seed: 2), level: 1)),
            ("runs fixed", ZlibOracle.compress(TestData.runs(3_000, seed: 3), level: 6, strategy: Z_FIXED)),
            ("random stored", ZlibOracle.compress(TestData.randomBytes(500, seed: 4), level: 0)),
            ("text huffman only", ZlibOracle.compress(TestData.text(1_000, seed: 5), level: 6, strategy: Z_HUFFMAN_ONLY)),
            ("long text", ZlibOracle.compress(TestData.text(60_000, seed: 6), level: 6)),
        ]
        for (name, stream) in sources {
            for i in 0..<800 {
                var m = stream
                let at = Int(g.next() % UInt64(m.count))
                switch i % 4 {
                case 0: m[at] ^= UInt8(1 << (g.next() % 8))  // one bit
                case 1: m[at] = UInt8(truncatingIfNeeded: g.next())  // one byte
                case 2: m.remove(at: at)
                default: m.insert(UInt8(truncatingIfNeeded: g.next()), at: at)
                }
                agreesWithZlib(m, limit: 100_000, "\(name), mutation \(i % 4) at \(at)")
            }
        }
    }

    @Test func neverCrashesOnMutatedCardPayloads() throws {
        let payload = try #require(SmartHealthCardPayloadTests.examples.first.flatMap { url -> [UInt8]? in
            let jws = try? String(contentsOf: url, encoding: .utf8)
            return jws.flatMap { SmartHealthCardPayloadTests.base64URL($0.split(separator: ".")[1]) }
        })
        var g = SplitMix64(seed: 7)
        for i in 0..<2_000 {
            var m = payload
            let at = Int(g.next() % UInt64(m.count))
            m[at] ^= UInt8(truncatingIfNeeded: g.next() | 1)
            agreesWithZlib(m, limit: 5_000, "card payload mutation \(i) at \(at)")
        }
    }
}
