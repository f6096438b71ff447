import Foundation
import Testing

@testable import FHIR

/// The tape skips plain ASCII in strings eight bytes at a time: it must stop at or before the
/// first byte that ends the run (a quote, a backslash, a control byte, a non-ASCII byte), and
/// strings must read the same as the byte-by-byte reader reads them.
@Suite struct TapeStringScanTests {
    static func isStop(_ b: UInt8) -> Bool { b == 0x22 || b == 0x5C || b < 0x20 || b >= 0x80 }

    /// Every special byte at every offset of a run, and random words: the scan never passes one.
    @Test func theWordScanNeverSkipsWhatEndsARun() {
        var generator = SystemRandomNumberGenerator()
        var cases: [[UInt8]] = []
        let specials: [UInt8] = [0x22, 0x5C, 0x00, 0x1F, 0x20, 0x21, 0x5B, 0x5D, 0x7F, 0x80, 0xC3, 0xFF]
        for special in specials {
            for position in 0..<24 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 24)
                bytes[position] = special
                cases.append(bytes)
            }
        }
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...40, using: &generator)
            cases.append((0..<count).map { _ in Bool.random(using: &generator) ? UInt8.random(in: 0x20...0x7E, using: &generator) : UInt8.random(in: 0...255, using: &generator) })
        }
        for bytes in cases {
            for start in 0...bytes.count {
                let end = bytes.withUnsafeBufferPointer { TapeParser.plainRun($0, from: start) }
                let expectedStop = bytes[start...].firstIndex(where: Self.isStop) ?? bytes.count
                #expect(end >= start && end <= expectedStop, "\(bytes) from \(start): \(end)")
                // Only a word that holds a stop, or the end, halts it.
                if end + 8 <= bytes.count { #expect(bytes[end..<end + 8].contains(where: Self.isStop)) }
            }
        }
    }

    /// Long strings with escapes, non-ASCII and control characters at every offset read back
    /// as JSONReader reads them, and bad ones fail as it fails.
    @Test func stringsReadTheSameAsTheTreeReader() throws {
        let pieces = ["\\\"", "\\\\", "\\n", "\\u00e9", "é", "😀", "\\ud83d\\ude00", "/", " "]
        for piece in pieces {
            for offset in 0..<20 {
                let text = String(repeating: "x", count: offset) + piece + String(repeating: "y", count: 19 - offset)
                let json = Data(#"{"a":"\#(text)","b":["\#(text)\#(text)"]}"#.utf8)
                let tape = try JSONTape([UInt8](json))
                #expect(tape.value(tape.root) == (try JSONReader().read(json)), "\(text)")
            }
        }
        for bad in ["\u{01}", "\\x", "\\u12"] {
            let json = Data(#"{"a":"\#(String(repeating: "z", count: 13))\#(bad)\#(String(repeating: "z", count: 9))"}"#.utf8)
            #expect(throws: JSONError.self) { try JSONTape([UInt8](json)) }
            #expect(throws: JSONError.self) { try JSONReader().read(json) }
        }
        // Invalid UTF-8 after a long ASCII run is still refused.
        var bytes = Array(#"{"a":"aaaaaaaaaaaaaaaaaaaa"#.utf8)
        bytes += [0xC3, 0x28]
        bytes += Array(#"bbbbbbbbbbbbbbbbbbbbbb"}"#.utf8)
        #expect(throws: JSONError.self) { try JSONTape(bytes) }
    }
}
