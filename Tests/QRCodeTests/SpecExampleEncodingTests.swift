import Testing
@testable import QRCode

/// The SMART Health Cards spec examples must encode as the spec's own QR images do:
/// two segments (byte `shc:/`, numeric digits) at level L in version 18.
@Suite struct SpecExampleEncodingTests {
    static func numericText(example: String) throws -> String {
        let jws = try Fixtures.text("shc-spec/example-\(example)-d-jws.txt")
        return "shc:/" + SHCNumeric.digits(forJWS: jws)
    }

    static func encodeExample(_ example: String) throws -> QRMatrix {
        let text = try numericText(example: example)
        let digits = String(text.dropFirst(5))
        return try QREncoder.encode(segments: [.byte("shc:/"), .numeric(digits)], level: .L)
    }

    @Test(arguments: ["00", "01", "03"])
    func numericTextHelperMatchesSpecFile(example: String) throws {
        let expected = try Fixtures.text("shc-spec/example-\(example)-f-qr-code-numeric-value-0.txt")
        #expect(try Self.numericText(example: example) == expected)
    }

    @Test func encodesSpecExample00AsVersion18L() throws {
        try checkAgainstSpecSVG("00")
    }

    @Test func encodesSpecExample01AsVersion18L() throws {
        try checkAgainstSpecSVG("01")
    }

    @Test func encodesSpecExample03AsVersion18L() throws {
        try checkAgainstSpecSVG("03")
    }

    private func checkAgainstSpecSVG(_ example: String) throws {
        let matrix = try Self.encodeExample(example)
        #expect(matrix.version.number == 18)
        #expect(matrix.level == .L)
        let svg = try Fixtures.text("shc-spec/example-\(example)-g-qr-code-0.svg")
        let spec = try SpecSVG.modules(svg)
        #expect(spec.size == matrix.size)
        // Format information (level + mask) sits in row 8, columns 0…8 of both grids.
        let specFormat = (0..<matrix.size).filter { $0 < 9 || $0 >= matrix.size - 8 }.map { spec.modules[8 * spec.size + $0] }
        let ourFormat = (0..<matrix.size).filter { $0 < 9 || $0 >= matrix.size - 8 }.map { matrix[$0, 8] }
        #expect(specFormat == ourFormat)
        #expect(spec.modules == matrix.modules)
    }
}

/// Example 02 is split over three QR codes, each `shc:/N/3/` (byte) + digits (numeric).
@Suite struct SpecMultiChunkEncodingTests {
    @Test(arguments: 0..<3)
    func encodesSpecExample02ChunkAsVersion21L(chunk: Int) throws {
        let text = try Fixtures.text("shc-spec/example-02-f-qr-code-numeric-value-\(chunk).txt")
        let prefix = "shc:/\(chunk + 1)/3/"
        #expect(text.hasPrefix(prefix))
        let matrix = try QREncoder.encode(segments: [.byte(prefix), .numeric(String(text.dropFirst(prefix.count)))], level: .L)
        #expect(matrix.version.number == 21)
        let spec = try SpecSVG.modules(try Fixtures.text("shc-spec/example-02-g-qr-code-\(chunk).svg"))
        #expect(spec.size == matrix.size)
        #expect(spec.modules == matrix.modules)
        #expect(try QRReader.decode(matrix).text == text)
    }
}
