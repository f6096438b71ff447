import ClinicalRecords
import Foundation
import HealthStoreCore
import SampleSignatures

/// Builds quantity samples for tests.
enum MakeSample {
    /// 2026-03-14T08:30:00.250Z
    static let start = Date(timeIntervalSince1970: 1_773_477_000.25)

    static func glucose(
        _ value: String = "5.40", at offset: TimeInterval = 0, source: String = "meter-app", device: String? = "GMC-0042-7781",
        metadata: [String: String] = [SampleMetadataKey.bloodGlucoseMealTime: "1"]
    ) throws -> QuantitySample {
        try QuantitySample(
            type: .bloodGlucose, value: value, unit: "mmol/L", startDate: start.addingTimeInterval(offset),
            source: RecordSource(identifier: source), device: device.map { SampleDevice(identifier: $0, name: "Glucose Meter") },
            metadata: metadata)
    }

    static func heartRate(_ value: String = "72", at offset: TimeInterval = 0, source: String = "watch") throws -> QuantitySample {
        try QuantitySample(
            type: .heartRate, value: value, unit: "/min", startDate: start.addingTimeInterval(offset),
            endDate: start.addingTimeInterval(offset + 60), source: RecordSource(identifier: source), device: SampleDevice(identifier: "W-1"))
    }
}

/// Seals by XOR with a fixed byte behind a marker, so tests can tell sealed columns from clear ones.
struct ScramblingSealer: RecordSealer {
    struct NotSealed: Error {}
    private let plain = PlainSealer()
    private static let marker = Data("SEALED:".utf8)

    func seal(_ plaintext: Data) throws -> Data { Self.marker + Data(plaintext.map { $0 ^ 0x5A }) }

    func open(_ sealed: Data) throws -> Data {
        guard sealed.starts(with: Self.marker) else { throw NotSealed() }
        return Data(sealed.dropFirst(Self.marker.count).map { $0 ^ 0x5A })
    }

    func identityKey(_ parts: [String]) -> Data { plain.identityKey(parts) }
    func contentDigest(_ data: Data) -> Data { plain.contentDigest(data) }
}
