import CZlib
import Deflate
import Testing
import ZlibReference

@Suite struct RoundTripTests {
    private func roundTrips(_ data: [UInt8], level: Int32 = Z_DEFAULT_COMPRESSION, strategy: Int32 = Z_DEFAULT_STRATEGY,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        let compressed = ZlibOracle.compress(data, level: level, strategy: strategy)
        do {
            let inflated = try Inflate.raw(compressed, limit: data.count)
            #expect(inflated == data, "level \(level) strategy \(strategy) count \(data.count)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("level \(level) strategy \(strategy) count \(data.count): \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func inflatesTheEmptyStream() throws {
        #expect(try Inflate.raw(ZlibOracle.compress([]), limit: 0) == [])
        #expect(try Inflate.raw([0x03, 0x00], limit: 0) == [])  // a final, empty fixed block
    }

    @Test func inflatesRandomBytesAtEveryLevel() {
        for level in Int32(0)...9 {
            for (i, count) in [1, 100, 5_000, 70_000].enumerated() {
                roundTrips(TestData.randomBytes(count, seed: UInt64(level) * 10 + UInt64(i)), level: level)
            }
        }
    }

    @Test func inflatesTextAtEveryLevel() {
        for level in Int32(0)...9 {
            for (i, count) in [1, 300, 20_000, 200_000].enumerated() {
                roundTrips(TestData.text(count, seed: UInt64(level) * 10 + UInt64(i)), level: level)
            }
        }
    }

    @Test func inflatesRunsOfZerosAndShortPatterns() {
        for count in [1, 3, 257, 258, 259, 4096, 65_536, 1 << 20] {
            roundTrips([UInt8](repeating: 0, count: count), level: 9)
            roundTrips([UInt8](repeating: 0, count: count), level: 1)
        }
        for level in [Int32(1), 6, 9] {
            roundTrips(TestData.runs(100_000, seed: 7), level: level)
        }
    }

    @Test func inflatesEveryLengthUpTo70000() {
        // Every length up to 600, then lengths around every power of two and window boundary.
        var lengths = Array(0...600)
        for p in 10...16 {
            let n = 1 << p
            lengths += [n - 2, n - 1, n, n + 1, n + 2]
        }
        lengths += [32_767 + 258, 40_000, 65_535, 65_536, 65_537, 69_999, 70_000]
        lengths += stride(from: 601, to: 70_000, by: 997).map { $0 }
        for n in lengths {
            let seed = UInt64(n)
            roundTrips(TestData.text(n, seed: seed), level: Int32(n % 10))
            if n % 3 == 0 { roundTrips(TestData.randomBytes(n, seed: seed), level: 6) }
        }
    }

    @Test(arguments: [("huffman only", Z_HUFFMAN_ONLY), ("RLE", Z_RLE), ("fixed", Z_FIXED), ("filtered", Z_FILTERED)])
    func inflatesEveryStrategy(name: String, strategy: Int32) {
        for level in [Int32(1), 6, 9] {
            roundTrips(TestData.text(50_000, seed: 1), level: level, strategy: strategy)
            roundTrips(TestData.randomBytes(3_000, seed: 2), level: level, strategy: strategy)
            roundTrips(TestData.runs(30_000, seed: 3), level: level, strategy: strategy)
            roundTrips([UInt8](repeating: 0x41, count: 10_000), level: level, strategy: strategy)
        }
    }

    @Test func inflatesStreamsOfManyBlocksSplitBySyncFlushes() throws {
        // Z_SYNC_FLUSH after each piece adds empty stored blocks between dynamic ones.
        let data = TestData.text(100_000, seed: 11)
        var stream = z_stream()
        #expect(deflateInit2_(&stream, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: 200_000)
        var source = data
        let produced: Int = source.withUnsafeMutableBufferPointer { i in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_out = o.baseAddress
                stream.avail_out = uInt(o.count)
                var offset = 0
                while offset < i.count {
                    let n = min(7_919, i.count - offset)
                    stream.next_in = i.baseAddress! + offset
                    stream.avail_in = uInt(n)
                    offset += n
                    _ = deflate(&stream, offset == i.count ? Z_FINISH : Z_SYNC_FLUSH)
                }
                return o.count - Int(stream.avail_out)
            }
        }
        #expect(try Inflate.raw(Array(out[..<produced]), limit: data.count) == data)
    }
}
