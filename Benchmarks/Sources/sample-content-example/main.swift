// Prints the DER of an example SignedSampleContent as a hex dump and as an
// annotated tree; the output is what docs/signed-sample-content.md shows.
// Run (in Benchmarks/): swift run sample-content-example            (hex dump and tree)
//      swift run sample-content-example --signed   (a signed CMS of it, PEM, with a fresh key)
import Foundation
import SampleSignatures
import SwiftASN1

let start = Date(timeIntervalSince1970: 1_773_477_000.25)  // 2026-03-14T08:30:00.250Z
let values = SampleValues(
    sampleType: .bloodGlucose,
    value: "5.40",
    unit: "mmol/L",
    startDate: start,
    endDate: start,
    deviceIdentifier: "GMC-0042-7781",
    extras: ["HKMetadataKeyBloodGlucoseMealTime": "1", "HKWasUserEntered": "0"]
)

func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}

func dump(_ bytes: [UInt8]) {
    for row in stride(from: 0, to: bytes.count, by: 16) {
        let slice = bytes[row..<min(row + 16, bytes.count)]
        let offset = String(row, radix: 16)
        let hexPart = slice.map(hex).joined(separator: " ")
        let text = String(slice.map { (0x20..<0x7F).contains($0) ? Character(UnicodeScalar($0)) : "." })
        print(String(repeating: "0", count: 4 - offset.count) + offset + "  "
            + hexPart.padding(toLength: 48, withPad: " ", startingAt: 0) + " " + text)
    }
}

func describe(_ node: ASN1Node, depth: Int) {
    let indent = String(repeating: "  ", count: depth)
    let offset = node.encodedBytes.startIndex
    let name: String
    switch node.identifier {
    case .sequence: name = "SEQUENCE"
    case .integer: name = "INTEGER"
    case .utf8String: name = "UTF8String"
    case .printableString: name = "PrintableString"
    case .generalizedTime: name = "GeneralizedTime"
    default: name = "\(node.identifier)"
    }
    switch node.content {
    case .constructed(let children):
        print("\(String(format: "%4d", offset))  \(indent)\(name)")
        for child in children { describe(child, depth: depth + 1) }
    case .primitive(let bytes):
        let value = node.identifier == .integer
            ? bytes.map(hex).joined() : "\"" + String(decoding: bytes, as: UTF8.self) + "\""
        print("\(String(format: "%4d", offset))  \(indent)\(name) \(value)")
    }
}

do {
    if CommandLine.arguments.contains("--signed") {
        let key = DeviceSigningKey()
        let signature = try SignedSample.sign(
            values, signer: CMSSigner(key: key), options: CMSSigningOptions(signingTime: start)
        )
        print(key.publicKey.pemRepresentation)
        print(try CMSSignedMessage(base64Encoded: signature).pemRepresentation)
        exit(0)
    }
    let der = try SignedSampleContent(values).derRepresentation
    print("DER, \(der.count) bytes:")
    print(der.map(hex).joined())
    print()
    dump(der)
    print()
    describe(try DER.parse(der), depth: 0)
} catch {
    print("error: \(error)")
    exit(1)
}
