import Testing

@testable import DigitalCovidCertificates

@Suite struct Base45Tests {
    /// RFC 9285 §4.3's examples.
    @Test func rfcExamples() throws {
        #expect(Base45.encode(Array("AB".utf8)) == "BB8")
        #expect(Base45.encode(Array("Hello!!".utf8)) == "%69 VD92EX0")
        #expect(Base45.encode(Array("base-45".utf8)) == "UJCLQE7W581")
        #expect(try Base45.decode("QED8WEX0") == Array("ietf!".utf8))
        #expect(try Base45.decode("") == [])
    }

    @Test func roundTripsEveryLength() throws {
        var bytes: [UInt8] = []
        for n in 0..<300 {
            #expect(try Base45.decode(Base45.encode(bytes)) == bytes)
            bytes.append(UInt8(truncatingIfNeeded: n &* 97 &+ 13))
        }
        #expect(try Base45.decode(Base45.encode([0xFF, 0xFF, 0xFF])) == [0xFF, 0xFF, 0xFF])
    }

    @Test func refusesWhatItCannotReadOneWay() {
        #expect(throws: Base45Error.length(4)) { try Base45.decode("ABCD") }
        #expect(throws: Base45Error.length(1)) { try Base45.decode("A") }
        #expect(throws: Base45Error.character(offset: 1, byte: UInt8(ascii: "b"))) { try Base45.decode("AbC") }
        #expect(throws: Base45Error.character(offset: 2, byte: 0x0A)) { try Base45.decode("BB\n") }
        // ":::" is 44 + 44·45 + 44·2025 = 91124, over 65535; "::" is 2024, over 255.
        #expect(throws: Base45Error.overflow(offset: 0)) { try Base45.decode(":::") }
        #expect(throws: Base45Error.overflow(offset: 3)) { try Base45.decode("BB8::") }
    }
}
