import ByteEncodings
import Foundation
import Testing

/// Hex: lowercase out (ids compare as text), either case in, nothing else accepted.
@Suite struct HexTests {
    @Test func encodesTwoDigitsPerByte() {
        #expect(Hex.encode([]) == "")
        #expect(Hex.encode([0x00, 0x0F, 0xA0, 0xFF]) == "000fa0ff")
        #expect(Hex.encode([0xDE, 0xAD, 0xBE, 0xEF], uppercase: true) == "DEADBEEF")
        let every = [UInt8](0...255)
        #expect(Hex.encode(every) == every.map { String(format: "%02x", $0) }.joined())
        #expect(Hex.encode(every[250...]) == "fafbfcfdfeff")
        #expect(Hex.encode(Data([0xCA, 0xFE, 0x00])) == "cafe00")
        // A sequence with no contiguous storage goes through an array.
        #expect(Hex.encode((0..<3).lazy.map { UInt8($0 * 0x11) }) == "001122")
        #expect(Hex.encode(AnySequence([0xAB, 0x0C] as [UInt8]), uppercase: true) == "AB0C")
    }

    @Test func decodesEitherCase() throws {
        #expect(try Hex.decode("") == [])
        #expect(try Hex.decode("000fa0ff") == [0x00, 0x0F, 0xA0, 0xFF])
        #expect(try Hex.decode("DeadBEEF") == [0xDE, 0xAD, 0xBE, 0xEF])
        let every = [UInt8](0...255)
        #expect(try Hex.decode(Hex.encode(every)) == every)
        #expect(try Hex.decode(Hex.encode(every, uppercase: true)) == every)
        #expect(try Hex.decode("x00ff".dropFirst()) == [0x00, 0xFF])
    }

    /// What `UInt8(_:radix:)` lets through (a sign) and what people paste (prefixes, spaces,
    /// separators) is refused, with the offset of the first bad character.
    @Test func rejectsAnythingButDigits() {
        #expect(throws: Hex.DecodingError.oddLength) { try Hex.decode("abc") }
        #expect(throws: Hex.DecodingError.invalidCharacter(offset: 0)) { try Hex.decode("+f") }
        #expect(throws: Hex.DecodingError.invalidCharacter(offset: 0)) { try Hex.decode("-0") }
        #expect(throws: Hex.DecodingError.invalidCharacter(offset: 1)) { try Hex.decode("0x00") }
        #expect(throws: Hex.DecodingError.invalidCharacter(offset: 2)) { try Hex.decode("00 111") }
        #expect(throws: Hex.DecodingError.invalidCharacter(offset: 2)) { try Hex.decode("00:1") }
        #expect(throws: Hex.DecodingError.invalidCharacter(offset: 3)) { try Hex.decode("00fg") }
        #expect(throws: Hex.DecodingError.invalidCharacter(offset: 0)) { try Hex.decode("\u{FF10}0") }
    }
}
