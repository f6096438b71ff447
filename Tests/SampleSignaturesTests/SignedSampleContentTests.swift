import Foundation
import SwiftASN1
import Testing
@testable import SampleSignatures

@Suite("SignedSampleContent DER")
struct SignedSampleContentTests {
    /// The example in docs/signed-sample-content.md.
    static let exampleHex =
        "3081af0201010c24484b5175616e74697479547970654964656e746966696572426c6f6f64476c75636f73651304352e34300c066d6d6f6c2f4c"
        + "181232303236303331343038333030302e32355a181232303236303331343038333030302e32355a0c0d474d432d303034322d3737383130"
        + "3f30260c21484b4d657461646174614b6579426c6f6f64476c75636f73654d65616c54696d650c013130150c10484b57617355736572456e"
        + "74657265640c0130"

    @Test func roundTripsThroughDER() throws {
        let content = try SignedSampleContent(TestSamples.glucose)
        let parsed = try SignedSampleContent(derRepresentation: content.derRepresentation)
        #expect(parsed == content)
        #expect(parsed.value.text == "5.40")
        #expect(parsed.sampleType == .bloodGlucose)
        #expect(parsed.unit == "mmol/L")
        #expect(parsed.startDate == TestSamples.start)
        #expect(parsed.deviceIdentifier == "GMC-0042-7781")
        #expect(parsed.extrasDictionary == TestSamples.glucose.extras)
    }

    @Test func encodesTheDocumentedExampleExactly() throws {
        let content = try SignedSampleContent(TestSamples.glucose)
        #expect(content.derRepresentation.hex == Self.exampleHex)
    }

    @Test func acceptsOnlyCanonicalEncodingsUnderEveryMutation() throws {
        let der = try SignedSampleContent(TestSamples.glucose).derRepresentation
        var accepted = 0
        var rejected = 0
        for input in Mutations.of(der) {
            do {
                let content = try SignedSampleContent(derRepresentation: input)
                accepted += 1
                // Whatever parses re-encodes to exactly the bytes given: one sample, one encoding.
                #expect(content.derRepresentation == input, "non-canonical input accepted: \(input.hex)")
            } catch {
                rejected += 1
            }
        }
        #expect(accepted > 0)
        #expect(rejected > accepted)
    }

    @Test func distinguishesValuePrecision() throws {
        var other = TestSamples.glucose
        other.value = "5.4"
        #expect(try SignedSampleContent(other).derRepresentation != SignedSampleContent(TestSamples.glucose).derRepresentation)
    }

    @Test func encodesTimesAsNormalisedGeneralizedTime() throws {
        let der = try SignedSampleContent(TestSamples.bodyMass).derRepresentation
        let text = String(decoding: der, as: UTF8.self)
        #expect(text.contains("20260314083000.25Z"))
        #expect(text.contains("20260314083030.25Z"))
        var whole = TestSamples.bodyMass
        whole.startDate = Date(timeIntervalSince1970: 1_773_477_000)
        let wholeText = String(decoding: try SignedSampleContent(whole).derRepresentation, as: UTF8.self)
        #expect(wholeText.contains("20260314083000Z"))
    }

    @Test func roundsDatesToMilliseconds() throws {
        var values = TestSamples.bodyMass
        values.startDate = Date(timeIntervalSince1970: 1_773_477_000.123_4)
        let content = try SignedSampleContent(values)
        #expect(String(decoding: content.derRepresentation, as: UTF8.self).contains("20260314083000.123Z"))
    }

    @Test func sortsExtrasByKeyWhateverTheirOrder() throws {
        var values = TestSamples.bodyMass
        values.extras = ["zeta": "1", "alpha": "2", "Mu": "3"]
        let content = try SignedSampleContent(values)
        #expect(content.extras.map(\.key) == ["Mu", "alpha", "zeta"])
        let again = try SignedSampleContent(values)
        #expect(again.derRepresentation == content.derRepresentation)
    }

    @Test func omitsExtrasWhenEmpty() throws {
        let der = try SignedSampleContent(TestSamples.bodyMass).derRepresentation
        let root = try DER.parse(der)
        guard case .constructed(let children) = root.content else {
            Issue.record("not constructed")
            return
        }
        #expect(Array(children).count == 7)
    }

    @Test func rejectsInvalidValuesWhenBuilding() {
        var values = TestSamples.bodyMass
        values.value = "7.2e1"
        #expect(throws: SampleContentError.invalidDecimal(.exponentNotAllowed(offset: 3))) {
            try SignedSampleContent(values)
        }
        values = TestSamples.bodyMass
        values.endDate = values.startDate.addingTimeInterval(-1)
        #expect(throws: SampleContentError.endBeforeStart) { try SignedSampleContent(values) }
        values = TestSamples.bodyMass
        values.unit = ""
        #expect(throws: SampleContentError.emptyField(.unit)) { try SignedSampleContent(values) }
        values = TestSamples.bodyMass
        values.extras = ["": "x"]
        #expect(throws: SampleContentError.emptyField(.extras)) { try SignedSampleContent(values) }
        values = TestSamples.bodyMass
        values.startDate = Date(timeIntervalSince1970: -70_000_000_000)
        #expect(throws: SampleContentError.dateOutOfRange(.startDate)) { try SignedSampleContent(values) }
    }

    // MARK: - Parsing hand-made encodings

    struct Fields {
        var version = 1
        var sampleType = "HKQuantityTypeIdentifierBodyMass"
        var value = "72.5"
        var valueAsUTF8 = false
        var unit = "kg"
        var start = "20260314083000Z"
        var end = "20260314083000Z"
        var device = "SCALE-9"
        var extras: [(String, String)]? = nil

        func encode() throws -> [UInt8] {
            var coder = DER.Serializer()
            try coder.appendConstructedNode(identifier: .sequence) { coder in
                try coder.serialize(version)
                try coder.serialize(ASN1UTF8String(sampleType))
                if valueAsUTF8 {
                    try coder.serialize(ASN1UTF8String(value))
                } else {
                    coder.appendPrimitiveNode(identifier: .printableString) { $0.append(contentsOf: value.utf8) }
                }
                try coder.serialize(ASN1UTF8String(unit))
                coder.appendPrimitiveNode(identifier: .generalizedTime) { $0.append(contentsOf: start.utf8) }
                coder.appendPrimitiveNode(identifier: .generalizedTime) { $0.append(contentsOf: end.utf8) }
                try coder.serialize(ASN1UTF8String(device))
                if let extras {
                    try coder.appendConstructedNode(identifier: .sequence) { coder in
                        for (key, value) in extras {
                            try coder.appendConstructedNode(identifier: .sequence) { coder in
                                try coder.serialize(ASN1UTF8String(key))
                                try coder.serialize(ASN1UTF8String(value))
                            }
                        }
                    }
                }
            }
            return coder.serializedBytes
        }
    }

    @Test func parsesAHandMadeEncoding() throws {
        var fields = Fields()
        fields.extras = [("a", "1"), ("b", "2")]
        let content = try SignedSampleContent(derRepresentation: fields.encode())
        #expect(content.value.text == "72.5")
        #expect(content.extras.count == 2)
    }

    @Test func rejectsUnsupportedVersion() throws {
        var fields = Fields()
        fields.version = 2
        #expect(throws: SampleContentError.unsupportedVersion(2)) {
            try SignedSampleContent(derRepresentation: fields.encode())
        }
    }

    @Test func rejectsAnExponentInTheSignedValue() throws {
        var fields = Fields()
        fields.value = "1E2"
        #expect(throws: SampleContentError.invalidDecimal(.exponentNotAllowed(offset: 1))) {
            try SignedSampleContent(derRepresentation: fields.encode())
        }
    }

    @Test func rejectsAValueEncodedAsUTF8String() throws {
        var fields = Fields()
        fields.valueAsUTF8 = true
        let error = #expect(throws: SampleContentError.self) {
            try SignedSampleContent(derRepresentation: fields.encode())
        }
        guard case .malformedDER(let fault) = error else {
            Issue.record("expected malformedDER, got \(String(describing: error))")
            return
        }
        #expect(fault.kind == .unexpectedTag)
        #expect(fault.structure == .signedSampleContent)
    }

    @Test func rejectsUnsortedOrRepeatedExtras() throws {
        var fields = Fields()
        fields.extras = [("b", "1"), ("a", "2")]
        #expect(throws: SampleContentError.extrasNotSorted) {
            try SignedSampleContent(derRepresentation: fields.encode())
        }
        fields.extras = [("a", "1"), ("a", "2")]
        #expect(throws: SampleContentError.extrasNotSorted) {
            try SignedSampleContent(derRepresentation: fields.encode())
        }
    }

    @Test func rejectsPresentButEmptyExtras() throws {
        var fields = Fields()
        fields.extras = []
        #expect(throws: SampleContentError.emptyExtras) {
            try SignedSampleContent(derRepresentation: fields.encode())
        }
    }

    @Test func rejectsEndBeforeStart() throws {
        var fields = Fields()
        fields.end = "20260314082959Z"
        #expect(throws: SampleContentError.endBeforeStart) {
            try SignedSampleContent(derRepresentation: fields.encode())
        }
    }

    @Test func rejectsSubMillisecondTimes() throws {
        var fields = Fields()
        fields.start = "20260314083000.1234Z"
        fields.end = "20260314083001Z"
        #expect(throws: SampleContentError.subMillisecondPrecision(.startDate)) {
            try SignedSampleContent(derRepresentation: fields.encode())
        }
    }

    @Test func rejectsNonNormalisedTimes() throws {
        var fields = Fields()
        fields.start = "20260314083000.50Z"
        let error = #expect(throws: SampleContentError.self) {
            try SignedSampleContent(derRepresentation: fields.encode())
        }
        #expect(error.map { if case .malformedDER(let f) = $0 { f.kind == .invalidValue } else { false } } == true)
    }

    @Test func rejectsEmptyRequiredText() throws {
        var fields = Fields()
        fields.device = ""
        #expect(throws: SampleContentError.emptyField(.deviceIdentifier)) {
            try SignedSampleContent(derRepresentation: fields.encode())
        }
    }

    @Test func rejectsInvalidUTF8() throws {
        var bytes = try Fields().encode()
        // The unit "kg" sits right before the first GeneralizedTime; corrupt its first byte.
        let index = try #require(bytes.firstIndex(of: UInt8(ascii: "k")))
        bytes[index] = 0xFF
        #expect(throws: SampleContentError.invalidUTF8(.unit)) {
            try SignedSampleContent(derRepresentation: bytes)
        }
    }

    @Test func rejectsTrailingAndTruncatedBytes() throws {
        let der = try Fields().encode()
        #expect(throws: SampleContentError.malformedDER(DERFault(kind: .trailingBytes, structure: .encoding, offset: der.count))) {
            try SignedSampleContent(derRepresentation: der + [0])
        }
        let error = #expect(throws: SampleContentError.self) {
            try SignedSampleContent(derRepresentation: der.dropLast())
        }
        #expect(error == .malformedDER(DERFault(kind: .truncated, structure: .encoding, offset: 0)))
    }
}
