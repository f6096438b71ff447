import Foundation
import Testing
@testable import SampleSignatures

@Suite("DER fault diagnosis")
struct DERScannerTests {
    func firstFault(_ bytes: [UInt8]) -> DERFault? {
        DERScanner.firstFault(in: bytes, maximumLength: 1 << 20)
    }

    @Test func acceptsWellFormedValuesIncludingLongFormTags() {
        #expect(firstFault([0x30, 0x03, 0x02, 0x01, 0x05]) == nil)
        #expect(firstFault([0x1F, 0x20, 0x00]) == nil)
        #expect(firstFault([0x04, 0x81, 0x80] + [UInt8](repeating: 0, count: 128)) == nil)
    }

    @Test func reportsMalformedTagsWithTheirOffset() {
        #expect(firstFault([0x30, 0x02, 0x00, 0x00]) == DERFault(kind: .invalidTag, structure: .encoding, offset: 2))
        #expect(firstFault([0x1F, 0x05, 0x00]) == DERFault(kind: .invalidTag, structure: .encoding, offset: 0))
        #expect(firstFault([0x1F, 0x80, 0x20, 0x00]) == DERFault(kind: .invalidTag, structure: .encoding, offset: 0))
    }

    @Test func reportsLengthProblemsInsideNestedValues() {
        #expect(firstFault([0x30, 0x04, 0x04, 0x81, 0x01, 0x00]) == DERFault(kind: .nonMinimalLength, structure: .encoding, offset: 2))
        #expect(firstFault([0x30, 0x02, 0x30, 0x80]) == DERFault(kind: .indefiniteLength, structure: .encoding, offset: 2))
        #expect(firstFault([0x30, 0x03, 0x04, 0x05, 0x00]) == DERFault(kind: .truncated, structure: .encoding, offset: 2))
    }

    @Test func treatsLengthsBeyondTheLimitAsAbsurdRatherThanTruncated() {
        let limited = DERScanner.firstFault(in: [0x04, 0x82, 0x10, 0x00, 0x00], maximumLength: 1024)
        #expect(limited == DERFault(kind: .lengthTooLarge, structure: .encoding, offset: 0))
        let within = DERScanner.firstFault(in: [0x04, 0x82, 0x01, 0x00, 0x00], maximumLength: 1024)
        #expect(within == DERFault(kind: .truncated, structure: .encoding, offset: 0))
    }

    @Test func describesFaultsForPeople() {
        let fault = DERFault(kind: .indefiniteLength, structure: .signedData, offset: 19)
        #expect(fault.description == "BER indefinite length is not allowed in DER in SignedData at byte offset 19")
        #expect(SignatureVerificationError.malformedDER(fault).description.hasPrefix("malformed DER: BER indefinite length"))
    }
}
