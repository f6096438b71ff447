import CBOR
import Testing

@testable import DigitalCovidCertificates

@Suite struct CBORReaderTests {
    func decode(_ hex: String) throws(CBORError) -> CBORValue {
        var bytes: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            bytes.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        return try CBORReader.decode(bytes)
    }

    /// RFC 8949 Appendix A examples.
    @Test func rfcExamples() throws {
        #expect(try decode("00") == .unsigned(0))
        #expect(try decode("1903e8") == .unsigned(1000))
        #expect(try decode("1bffffffffffffffff") == .unsigned(.max))
        #expect(try decode("3bffffffffffffffff") == .negative(.max))
        #expect(try decode("3903e7") == .integer(-1000))
        #expect(try decode("f93c00") == .float(1.0))
        #expect(try decode("f97bff") == .float(65504.0))
        #expect(try decode("fa47c35000") == .float(100000.0))
        #expect(try decode("fb7e37e43c8800759c") == .float(1.0e300))
        #expect(try decode("f90001") == .float(5.960464477539063e-8))
        #expect(try decode("f4") == .bool(false))
        #expect(try decode("f6") == .null)
        #expect(try decode("f7") == .undefined)
        #expect(try decode("f0") == .simple(16))
        #expect(try decode("f8ff") == .simple(255))
        #expect(try decode("c074323031332d30332d32315432303a30343a30305a") == .tagged(0, .text("2013-03-21T20:04:00Z")))
        #expect(try decode("4401020304") == .bytes([1, 2, 3, 4]))
        #expect(try decode("62c3bc") == .text("ü"))
        #expect(try decode("8301820203820405") == .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])]))
        #expect(try decode("a201020304") == .map([CBORMapEntry(.unsigned(1), .unsigned(2)), CBORMapEntry(.unsigned(3), .unsigned(4))]))
        // Indefinite lengths, as the member states' plain CBOR uses them.
        #expect(try decode("5f42010243030405ff") == .bytes([1, 2, 3, 4, 5]))
        #expect(try decode("7f657374726561646d696e67ff") == .text("streaming"))
        #expect(try decode("9f018202039f0405ffff") == .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])]))
        #expect(try decode("bf61610161629f0203ffff") == .map([CBORMapEntry(.text("a"), .unsigned(1)), CBORMapEntry(.text("b"), .array([.unsigned(2), .unsigned(3)]))]))
    }

    @Test func refusesMalformedAndHostileInput() {
        #expect(throws: CBORError.truncated(offset: 1)) { try decode("19") }
        #expect(throws: CBORError.trailingBytes(offset: 1)) { try decode("0000") }
        #expect(throws: CBORError.reservedAdditionalInformation(offset: 0)) { try decode("1c") }
        #expect(throws: CBORError.indefiniteLength(offset: 0)) { try decode("1f") }
        #expect(throws: CBORError.unexpectedBreak(offset: 0)) { try decode("ff") }
        #expect(throws: CBORError.badSimpleValue(offset: 0)) { try decode("f818") }
        #expect(throws: CBORError.invalidUTF8(offset: 0)) { try decode("61ff") }
        #expect(throws: CBORError.duplicateKey(offset: 3)) { try decode("a2010201 03".replacingOccurrences(of: " ", with: "")) }
        // A chunk of another type inside an indefinite string, and a nested indefinite chunk.
        #expect(throws: CBORError.indefiniteLength(offset: 1)) { try decode("5f6161ff") }
        #expect(throws: CBORError.indefiniteLength(offset: 1)) { try decode("5f5fffff") }
        #expect(throws: CBORError.truncated(offset: 3)) { try decode("9f0102") }
        // A length claiming 2^64−1 bytes is refused before anything is allocated.
        #expect(throws: CBORError.truncated(offset: 0)) { try decode("5bffffffffffffffff") }
        #expect(throws: CBORError.truncated(offset: 0)) { try decode("9b000000000000000200") }
        #expect(throws: CBORError.tooLarge(offset: 0)) { try decode("bb00000000000000020000") }
        // Nesting past the limit.
        #expect(throws: CBORError.tooDeep(limit: 16)) { try decode(String(repeating: "81", count: 17) + "00") }
        #expect(throws: CBORError.tooDeep(limit: 16)) { try decode(String(repeating: "9f", count: 40)) }
        #expect(throws: CBORError.tooDeep(limit: 16)) { try decode(String(repeating: "c1", count: 17) + "00") }
    }

    @Test func theWriterRoundTrips() throws {
        let value = CBORValue.map([
            CBORMapEntry(.integer(-260), .array([.text("x"), .bytes([0, 255]), .float(1.5), .float(0.1), .bool(true), .null, .tagged(18, .unsigned(70_000))])),
            CBORMapEntry(.unsigned(1), .integer(Int64.min)), CBORMapEntry(.text("é"), .unsigned(UInt64.max)), CBORMapEntry(.simple(200), .undefined),
        ])
        #expect(try CBORReader.decode(CBORWriter.encode(value)) == value)
        #expect(CBORWriter.encode(.unsigned(23)) == [0x17])
        #expect(CBORWriter.encode(.unsigned(24)) == [0x18, 24])
        #expect(CBORWriter.encode(.integer(-500)) == [0x39, 0x01, 0xF3])
    }
}

@Suite struct CBORReaderScaleTests {
    /// A map of 30,000 distinct keys reads in linear time, and a repeat far into it is still found.
    @Test func largeMapsAreCheckedForRepeatsByHash() throws {
        var bytes: [UInt8] = [0xBA, 0x00, 0x00, 0x75, 0x30]  // map of 30,000 entries
        for k in 0..<30_000 { bytes += [0x19, UInt8(k >> 8), UInt8(k & 0xFF), 0xF6] }
        let start = ContinuousClock.now
        let value = try CBORReader.decode(bytes, limits: .init(maxDepth: 16, maxItems: 100_000))
        #expect(value.mapEntries?.count == 30_000)
        // Linear is milliseconds even in a debug build; comparing each key with every earlier one
        // would be 450 million comparisons. The bound leaves room for a busy machine.
        #expect(ContinuousClock.now - start < .seconds(10))
        var repeated = bytes
        repeated.replaceSubrange(repeated.count - 4..<repeated.count, with: [0x19, 0x00, 0x07, 0xF6])
        #expect(throws: CBORError.duplicateKey(offset: repeated.count - 4)) { try CBORReader.decode(repeated, limits: .init(maxDepth: 16, maxItems: 100_000)) }
        // Keys 0…7 are searched, the eighth switches to the set: a repeat right at the switch is found too.
        let small: [UInt8] = [0xA9] + (0..<8).flatMap { [UInt8($0), 0xF6] } + [0x03, 0xF6]
        #expect(throws: CBORError.duplicateKey(offset: 17)) { try CBORReader.decode(small) }
    }
}
