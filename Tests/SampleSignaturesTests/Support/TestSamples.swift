import Foundation
import SampleSignatures

/// Fixed sample values used across tests.
enum TestSamples {
    /// 2026-03-14T08:30:00.250Z
    static let start = Date(timeIntervalSince1970: 1_773_477_000.25)

    static let glucose = SampleValues(
        sampleType: .bloodGlucose,
        value: "5.40",
        unit: "mmol/L",
        startDate: start,
        endDate: start,
        deviceIdentifier: "GMC-0042-7781",
        extras: ["HKMetadataKeyBloodGlucoseMealTime": "1", "HKWasUserEntered": "0"]
    )

    static let bodyMass = SampleValues(
        sampleType: .bodyMass,
        value: "72.5",
        unit: "kg",
        startDate: start,
        endDate: start.addingTimeInterval(30),
        deviceIdentifier: "SCALE-9"
    )
}

extension Array where Element == UInt8 {
    init(hex: String) {
        var bytes: [UInt8] = []
        var iterator = hex.utf8.makeIterator()
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: 0
            }
        }
        while let high = iterator.next(), let low = iterator.next() {
            bytes.append(nibble(high) << 4 | nibble(low))
        }
        self = bytes
    }

    var hex: String {
        map { String(format: "%02x", $0) }.joined()
    }
}
