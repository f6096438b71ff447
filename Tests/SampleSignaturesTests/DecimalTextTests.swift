import Testing
@testable import SampleSignatures

@Suite("Decimal text")
struct DecimalTextTests {
    @Test("accepts exact decimals as written", arguments: ["0", "5", "5.4", "5.40", "-0.001", "120", "007.50", "-12.3456789"])
    func acceptsExactDecimals(text: String) throws {
        let decimal = try DecimalText(text)
        #expect(decimal.text == text)
    }

    @Test(
        "rejects non-decimal text with the specific fault",
        arguments: [
            ("", DecimalTextFault.empty),
            ("5.", .missingFractionDigits),
            (".5", .missingIntegerDigits),
            ("-", .missingIntegerDigits),
            ("-.5", .missingIntegerDigits),
            ("1e3", .exponentNotAllowed(offset: 1)),
            ("1.5E-2", .exponentNotAllowed(offset: 3)),
            ("+5", .unexpectedCharacter(offset: 0)),
            ("5,4", .unexpectedCharacter(offset: 1)),
            ("1.2.3", .unexpectedCharacter(offset: 3)),
            (" 5", .unexpectedCharacter(offset: 0)),
            ("--5", .unexpectedCharacter(offset: 1)),
            ("NaN", .unexpectedCharacter(offset: 0)),
            (String(repeating: "9", count: 65), .tooLong),
        ]
    )
    func rejectsNonDecimalText(text: String, fault: DecimalTextFault) {
        #expect(throws: SampleContentError.invalidDecimal(fault)) {
            try DecimalText(text)
        }
    }

    @Test func keepsTrailingZerosDistinct() throws {
        #expect(try DecimalText("5.40") != DecimalText("5.4"))
    }
}
