import Foundation
import TestSupport
import HealthArchive
import Testing

/// The CRC-32 every zip entry carries: a wrong one makes every honest archive look damaged to
/// other tools and every damaged one pass ours, so it is held to the published check values and
/// to the system's zlib.
@Suite struct CRC32Tests {
    /// The catalogue check value ("123456789"), the pangram everyone quotes, and the empty input.
    @Test func publishedCheckValues() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
        #expect(CRC32.checksum([]) == 0)
    }

    /// Every single byte, and inputs of many lengths (across the table's and any unrolled
    /// loop's boundaries), give what zlib gives.
    @Test func agreesWithZlib() {
        for byte in 0...255 {
            let input = [UInt8(byte)]
            #expect(CRC32.checksum(input) == zlibCRC32(input), "byte \(byte)")
        }
        var generator = SplitMix64(seed: 32)
        for length in [1, 2, 3, 4, 7, 8, 15, 16, 17, 63, 64, 65, 255, 256, 1000, 4096, 65_537] {
            let input = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(CRC32.checksum(input) == zlibCRC32(input), "length \(length)")
        }
        let zeros = [UInt8](repeating: 0, count: 100_000)
        #expect(CRC32.checksum(zeros) == zlibCRC32(zeros))
    }

    /// A checksum continued from the one before (`initial`) is the checksum of the whole, at
    /// every split: what a writer that checksums a stream chunk by chunk relies on.
    @Test func continuesFromAnEarlierChecksum() {
        let input = TestBytes.text(300)
        let whole = CRC32.checksum(input)
        #expect(whole == zlibCRC32(input))
        for split in 0...input.count {
            let first = Array(input[..<split])
            let rest = Array(input[split...])
            let continued = rest.withUnsafeBytes { CRC32.checksum($0, initial: CRC32.checksum(first)) }
            #expect(continued == whole, "split at \(split)")
        }
    }

    /// The raw-buffer form reads a slice in place and agrees with the array form.
    @Test func bufferAndArrayFormsAgree() {
        let input = TestBytes.noise(10_000, seed: 9)
        let inner = input.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[100..<9_000])) }
        #expect(inner == CRC32.checksum(Array(input[100..<9_000])))
        #expect(inner == zlibCRC32(Array(input[100..<9_000])))
    }
}
