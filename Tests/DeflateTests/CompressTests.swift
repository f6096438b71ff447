import CZlib
import Foundation
import Testing
import TestSupport
import ZlibReference

@testable import Deflate

/// `Compress`: every stream it writes inflates to its input with our `Inflate` and with system
/// zlib (raw and zlib-wrapped, at every level), and at `.best` it is about as small as zlib's
/// level 9.
@Suite struct CompressTests {
    /// Checks one input at every level, both framings, both inflaters.
    private func roundTrips(_ data: [UInt8], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for level in Compress.Level.allCases {
            let raw = Compress.raw(data, level: level)
            #expect((try? Inflate.raw(raw, limit: data.count)) == data, "\(what) at \(level): ours", sourceLocation: sourceLocation)
            #expect(ZlibOracle.inflate(raw, limit: data.count) == .inflated(data), "\(what) at \(level): zlib", sourceLocation: sourceLocation)
            let zlib = Compress.zlib(data, level: level)
            #expect((try? Inflate.zlib(zlib, limit: data.count)) == data, "\(what) at \(level), zlib framing: ours", sourceLocation: sourceLocation)
            #expect(ZlibOracle.inflate(zlib, limit: data.count, windowBits: 15) == .inflated(data),
                    "\(what) at \(level), zlib framing: zlib", sourceLocation: sourceLocation)
        }
    }

    @Test func compressesNothing() throws {
        roundTrips([], "empty")
        // The shortest streams there are: an empty fixed block, or an empty stored one.
        #expect(Compress.raw([], level: .best) == [0x03, 0x00])
        #expect(Compress.raw([], level: .stored) == [0x01, 0x00, 0x00, 0xFF, 0xFF])
        #expect(Compress.zlib([], level: .best) == [0x78, 0xDA, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
    }

    @Test func compressesEveryShortLength() {
        for count in 0...300 {
            roundTrips(TestData.text(count, seed: UInt64(count)), "text of \(count)")
            roundTrips(TestData.randomBytes(count, seed: UInt64(count)), "random \(count)")
        }
    }

    @Test func compressesRandomTextAndRunsOfManySizes() {
        for (i, count) in [1_000, 16_383, 16_384, 16_385, 40_000, 70_000, 200_000].enumerated() {
            roundTrips(TestData.randomBytes(count, seed: 100 + UInt64(i)), "random \(count)")
            roundTrips(TestData.text(count, seed: 200 + UInt64(i)), "text \(count)")
            roundTrips(TestData.runs(count, seed: 300 + UInt64(i)), "runs \(count)")
        }
        roundTrips([UInt8](repeating: 0, count: 1 << 20), "a megabyte of zeros")
        roundTrips((0..<300_000).map { UInt8(truncatingIfNeeded: $0 % 251) }, "a cycle of 251")
    }

    /// Random bytes do not compress: stored blocks keep the growth to a few bytes per 64 KiB.
    @Test func storesIncompressibleData() {
        for count in [1, 1_000, 65_535, 65_536, 300_000] {
            let data = TestData.randomBytes(count, seed: UInt64(count))
            let blocks = (count + 65_534) / 65_535
            for level in Compress.Level.allCases {
                let raw = Compress.raw(data, level: level)
                // Stored blocks for one LZ77 block at a time: 5 bytes each, a block per 16 384
                // symbols (or 64 KiB), maybe an empty final one, and the final partial byte.
                let bound = count + 5 * (max(blocks, (count + 16_383) / 16_384) + 1) + 1
                #expect(raw.count <= bound, "\(count) random bytes at \(level) grew to \(raw.count)")
            }
        }
    }

    /// Repeats right at the window's edge: 32 767 back is the furthest a match may reach here.
    @Test func findsMatchesAcrossTheWholeWindow() {
        let block = TestData.randomBytes(300, seed: 9)
        for gap in [32_466, 32_467, 32_468, 32_500] {
            let data = block + TestData.randomBytes(gap, seed: UInt64(gap)) + block
            roundTrips(data, "a repeat \(gap + 300) back")
            let raw = Compress.raw(data, level: .best)
            if gap + 300 <= 32_767 {
                #expect(raw.count < data.count - 200, "the repeat at distance \(gap + 300) was not found")
            }
        }
    }

    /// A skewed alphabet whose optimal Huffman code needs codewords longer than 15 bits: the
    /// length limit must hold (zlib rejects longer codes).
    @Test func limitsCodeLengths() {
        var fibonacci = [1, 1]
        while fibonacci.count < 26 { fibonacci.append(fibonacci[fibonacci.count - 1] + fibonacci[fibonacci.count - 2]) }
        var data: [UInt8] = []
        for (symbol, count) in fibonacci.enumerated() { data += repeatElement(UInt8(symbol * 7), count: count) }
        var generator = SplitMix64(seed: 26)
        data.shuffle(using: &generator)
        roundTrips(data, "Fibonacci frequencies")

        let frequencies = fibonacci + [Int](repeating: 0, count: 260)
        let lengths = HuffmanCodeBuilder.lengths(frequencies, limit: 15)
        #expect(lengths.max() == 15)
        #expect(Self.kraftSum(lengths) == 1 << 15)
        // Where the limit does not bind, the code is an optimal (Huffman) one.
        let small = HuffmanCodeBuilder.lengths([5, 9, 12, 13, 16, 45], limit: 15)
        #expect(small == [4, 4, 3, 3, 3, 1])
        // Fewer than two used symbols still make a complete code of two one-bit codewords.
        #expect(HuffmanCodeBuilder.lengths([0, 0, 7], limit: 7) == [1, 0, 1])
        #expect(HuffmanCodeBuilder.lengths([0, 0, 0], limit: 7) == [1, 1, 0])
        #expect(HuffmanCodeBuilder.lengths([3, 0, 0], limit: 7) == [1, 1, 0])
    }

    /// The sum of 2^(15 − length) over used symbols: 2^15 for a complete code.
    private static func kraftSum(_ lengths: [UInt8]) -> Int {
        lengths.filter { $0 > 0 }.reduce(0) { $0 + 1 << (15 - Int($1)) }
    }

    /// Card payloads are small JSON: at `.best` they come out no bigger than zlib's level 9
    /// plus 1 %, so an issued card's QR code is no bigger than zlib would make it.
    @Test func compressesCardPayloadsAsWellAsZlibLevel9() throws {
        let payloads = SmartHealthCardPayloadTests.examples.compactMap { url -> [UInt8]? in
            let file = url.deletingLastPathComponent()
                .appendingPathComponent(url.lastPathComponent.replacingOccurrences(of: "-d-jws.txt", with: "-c-jws-payload-minified.json"))
            return (try? Data(contentsOf: file)).map { Array($0) }
        }
        #expect(payloads.count >= 8)
        var ours = 0
        var zlib = 0
        for json in payloads {
            let compressed = Compress.raw(json, level: .best)
            let reference = ZlibOracle.compress(json, level: 9)
            #expect(compressed.count <= reference.count + reference.count / 100, "\(json.count) bytes: \(compressed.count) against zlib's \(reference.count)")
            #expect(ZlibOracle.inflate(compressed, limit: json.count) == .inflated(json))
            ours += compressed.count
            zlib += reference.count
        }
        #expect(ours <= zlib + zlib / 200, "all payloads: \(ours) bytes against zlib's \(zlib)")
    }

    /// A megabyte of FHIR JSON: every level round-trips, and `.balanced` and `.best` are within
    /// 3 % of zlib's levels 6 and 9.
    @Test func compressesALargeJSONFileLikeZlib() throws {
        let json = try TestData.largeJSON()
        roundTrips(json, "large JSON")
        for (level, zlibLevel) in [(Compress.Level.balanced, Int32(6)), (.best, 9)] {
            let ours = Compress.raw(json, level: level).count
            let reference = ZlibOracle.compress(json, level: zlibLevel).count
            #expect(ours <= reference + reference * 3 / 100, "\(level): \(ours) against zlib level \(zlibLevel)'s \(reference)")
        }
    }

    /// The zlib header carries the level as zlib writes it, and its check bits hold.
    @Test func writesZlibHeadersAsZlibDoes() {
        let data = TestData.text(1_000, seed: 1)
        let expected: [(Compress.Level, [UInt8])] = [(.stored, [0x78, 0x01]), (.fast, [0x78, 0x01]), (.balanced, [0x78, 0x9C]), (.best, [0x78, 0xDA])]
        for (level, header) in expected {
            let stream = Compress.zlib(data, level: level)
            #expect(Array(stream.prefix(2)) == header)
            #expect(Array(stream.suffix(4)) == withUnsafeBytes(of: Adler32.checksum(data).bigEndian, Array.init))
        }
    }

    @Test func acceptsDataAndRawBuffers() throws {
        let data = TestData.text(5_000, seed: 3)
        let fromArray = Compress.raw(data, level: .best)
        #expect(Compress.raw(Data(data), level: .best) == fromArray)
        #expect(data.withUnsafeBytes { Compress.raw($0, level: .best) } == fromArray)
        #expect(Compress.zlib(Data(data)) == Compress.zlib(data))
    }
}
