import CZlib
import Deflate
import Foundation
import Testing
import ZlibReference

/// The zlib wrapper (RFC 1950): header checks, Adler-32, and the same limits as raw DEFLATE.
@Suite struct ZlibFormatTests {
    @Test func inflatesZlibStreamsAtEveryLevel() throws {
        for level in Int32(0)...9 {
            for data in [TestData.text(40_000, seed: UInt64(level)), TestData.randomBytes(2_000, seed: 9), []] {
                let stream = ZlibOracle.compress(data, level: level, windowBits: 15)
                #expect(try Inflate.zlib(stream, limit: data.count) == data)
            }
        }
    }

    @Test func acceptsEverySmallerWindowSize() throws {
        let data = TestData.text(10_000, seed: 4)
        for windowBits in Int32(9)...15 {
            let stream = ZlibOracle.compress(data, level: 9, windowBits: windowBits)
            #expect(try Inflate.zlib(stream, limit: data.count) == data)
        }
    }

    @Test func rejectsAWrongAdler32() throws {
        let data = TestData.text(5_000, seed: 5)
        var stream = ZlibOracle.compress(data, windowBits: 15)
        let good = try Inflate.zlib(stream, limit: data.count)
        #expect(good == data)
        stream[stream.count - 1] ^= 0x01
        let expected = Adler32.checksum(data) ^ 0x01
        #expect(throws: InflateError.checksumMismatch(expected: expected, computed: Adler32.checksum(data))) {
            try Inflate.zlib(stream, limit: data.count)
        }
        #expect(ZlibOracle.inflate(stream, limit: data.count, windowBits: 15) == .failed)
    }

    @Test func rejectsBadHeaders() throws {
        let body = ZlibOracle.compress(Array("hello".utf8))
        let trailer: [UInt8] = [0x06, 0x2C, 0x02, 0x15]  // Adler-32 of "hello"
        #expect(Adler32.checksum(Array("hello".utf8)) == 0x062C_0215)
        #expect(throws: InflateError.corrupt(.invalidZlibHeaderCheck)) { try Inflate.zlib([0x78, 0x9D] + body + trailer, limit: 100) }
        // CM 7 with valid check bits.
        #expect(throws: InflateError.corrupt(.unsupportedCompressionMethod(7))) { try Inflate.zlib([0x77, 0x85] + body + trailer, limit: 100) }
        // CINFO 8 (a 64 KiB window).
        #expect(throws: InflateError.corrupt(.invalidWindowSize(cinfo: 8))) { try Inflate.zlib([0x88, 0x1C] + body + trailer, limit: 100) }
        // FDICT set.
        #expect(throws: InflateError.corrupt(.presetDictionary)) {
            try Inflate.zlib([0x78, 0xBB, 0, 0, 0, 1] + body + trailer, limit: 100)
        }
        for header: [UInt8] in [[0x78, 0x9D], [0x77, 0x85], [0x88, 0x1C], [0x78, 0xBB]] {
            #expect(ZlibOracle.inflate(header + body + trailer, limit: 100, windowBits: 15) == .failed)
        }
        #expect(try Inflate.zlib([0x78, 0x9C] + body + trailer, limit: 100) == Array("hello".utf8))
    }

    @Test func rejectsAMissingOrPartialTrailerAndTrailingBytes() {
        let stream = ZlibOracle.compress(Array("hello, hello, hello".utf8), windowBits: 15)
        for n in 0..<stream.count {
            #expect(throws: InflateError.truncated) { try Inflate.zlib(Array(stream[..<n]), limit: 100) }
        }
        #expect(throws: InflateError.trailingBytes(count: 2)) { try Inflate.zlib(stream + [0, 0], limit: 100) }
    }

    @Test func stopsAtTheLimit() {
        let data = [UInt8](repeating: 7, count: 100_000)
        let stream = ZlibOracle.compress(data, level: 9, windowBits: 15)
        #expect(throws: InflateError.outputTooLarge(limit: 99_999)) { try Inflate.zlib(stream, limit: 99_999) }
        #expect(throws: Never.self) { try Inflate.zlib(stream, limit: 100_000) }
    }

    @Test func acceptsDataAndRawBufferInput() throws {
        let data = TestData.text(3_000, seed: 8)
        let z = ZlibOracle.compress(data, windowBits: 15)
        let r = ZlibOracle.compress(data)
        #expect(try Inflate.zlib(Data(z), limit: data.count) == data)
        #expect(try Inflate.raw(Data(r), limit: data.count) == data)
        #expect(try r.withUnsafeBytes { try Inflate.raw($0, limit: data.count) } == data)
        // A Data slice that does not start at index 0.
        let padded = Data([0xAA] + r)
        #expect(try Inflate.raw(padded[1...], limit: data.count) == data)
    }

    @Test func computesAdler32LikeZlib() {
        for count in [0, 1, 7, 8, 9, 5_551, 5_552, 5_553, 100_000] {
            let bytes = TestData.randomBytes(count, seed: UInt64(count))
            let reference = bytes.withUnsafeBufferPointer { adler32(1, $0.baseAddress, uInt($0.count)) }
            #expect(Adler32.checksum(bytes) == UInt32(reference))
            var split = Adler32()
            split.update(Array(bytes.prefix(count / 3)))
            split.update(Array(bytes.dropFirst(count / 3)))
            #expect(split.value == UInt32(reference))
        }
        let ones = [UInt8](repeating: 0xFF, count: 200_000)
        #expect(Adler32.checksum(ones) == UInt32(ones.withUnsafeBufferPointer { adler32(1, $0.baseAddress, uInt($0.count)) }))
    }
}
