import Foundation
import Testing
import TestSupport
import Deflate
@testable import QRCode

@Suite struct PNGDeflateTests {
    @Test func checksumsMatchPublishedCheckValues() {
        // The standard CRC-32 check value and the Adler-32 example from its Wikipedia article.
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Adler32.checksum(Array("Wikipedia".utf8)) == 0x11E6_0398)
    }

    /// The PNG writer's compressor (the `Deflate` target's, tested fully there) at every level.
    @Test func compressorRoundTripsThroughInflater() throws {
        var rng = SplitMix64(state: 7)
        let inputs: [[UInt8]] = [
            [],
            [42],
            Array("abcabcabcabcabcabc hello hello hello".utf8),
            (0..<70_000).map { _ in UInt8.random(in: 0...3, using: &rng) },
            (0..<50_000).map { UInt8(truncatingIfNeeded: $0 / 300) },
        ]
        for input in inputs {
            for level in Compress.Level.allCases {
                #expect(try Inflate.zlib(Compress.zlib(input, level: level), limit: input.count + 1) == input)
            }
        }
    }

    @Test func rejectsCorruptImageData() throws {
        // The inflater itself is tested in DeflateTests of the Deflate target; here, that the PNG
        // decoder surfaces its errors.
        let input = Array(String(repeating: "QR code payload ", count: 200).utf8)
        var zlib = Compress.zlib(input)
        zlib[zlib.count - 1] ^= 0xFF
        #expect(throws: InflateError.self) { try Inflate.zlib(zlib, limit: 1 << 20) }
    }

    static let python3: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// zlib itself (through Python's standard library) produces dynamic-Huffman, fixed and
    /// stored streams at several levels and strategies; all must inflate to the original.
    @Test(.enabled(if: python3 != nil, "python3 is needed to produce reference zlib streams"))
    func inflatesStreamsMadeByReferenceZlib() throws {
        let script = """
        import sys, zlib, random
        random.seed(5)
        data = bytes(random.choice(b'ACGT  \\n') for _ in range(60000)) + bytes(range(256)) * 40
        out = sys.stdout.buffer
        for level, strategy in [(0, 0), (1, 0), (6, 0), (9, 0), (9, 1), (9, 2), (9, 3), (9, 4)]:
            c = zlib.compressobj(level, zlib.DEFLATED, 15, 9, strategy)
            z = c.compress(data) + c.flush()
            out.write(len(z).to_bytes(4, 'big') + z)
        out.write(len(data).to_bytes(4, 'big') + data)
        """
        let pipe = Pipe()
        let process = try ChildProcess(executable: URL(fileURLWithPath: Self.python3!), arguments: ["-c", script], standardOutput: .pipe(pipe))
        let output = [UInt8](pipe.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        var records: [[UInt8]] = []
        var offset = 0
        while offset + 4 <= output.count {
            let length = Int(output[offset]) << 24 | Int(output[offset + 1]) << 16 | Int(output[offset + 2]) << 8 | Int(output[offset + 3])
            records.append(Array(output[(offset + 4)..<(offset + 4 + length)]))
            offset += 4 + length
        }
        #expect(records.count == 9)
        let original = records.removeLast()
        for stream in records {
            #expect(try Inflate.zlib(stream, limit: original.count) == original)
        }
    }
}
