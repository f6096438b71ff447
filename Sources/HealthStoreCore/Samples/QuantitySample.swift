import ClinicalRecords
import Foundation
import SampleSignatures

/// A measurement, like HealthKit's `HKQuantitySample`: a type, a value with its exact decimal
/// text and a UCUM unit, start and end dates, the source that saved it, the device that
/// measured it, and metadata — where a device's digital signature travels
/// (``SampleMetadataKey/digitalSignature``).
///
/// Samples are immutable and identified by their ``uuid``. Dates keep millisecond precision,
/// the precision a signed sample's content holds.
public struct QuantitySample: Sendable, Hashable, Identifiable {
    /// The sample's identity.
    public let uuid: UUID
    /// What was measured.
    public let type: QuantityType
    /// The value's exact decimal text (`"5.40"` is not `"5.4"`).
    public let value: String
    /// The UCUM unit, one of the type's ``QuantityType/allowedUnits``.
    public let unit: String
    /// When the measurement started.
    public let startDate: Date
    /// When it ended (the start, for an instantaneous reading).
    public let endDate: Date
    /// The app or institution that saved the sample.
    public let source: RecordSource
    /// The measuring device, when known.
    public let device: SampleDevice?
    /// Metadata, keyed by HealthKit metadata key names.
    public let metadata: [String: String]

    /// The sample's identity (``uuid``).
    public var id: UUID { uuid }

    /// The base64 CMS SignedData in ``SampleMetadataKey/digitalSignature``, if any.
    public var digitalSignature: String? { metadata[SampleMetadataKey.digitalSignature] }

    /// The value as a number, for arithmetic and charts (the exact text stays in ``value``).
    public var doubleValue: Double? { Double(value) }

    /// Makes a sample, checking its values.
    ///
    /// - Parameters:
    ///   - endDate: defaults to `startDate`.
    /// - Throws: ``SampleValidationError`` when the value is not an exact decimal, the unit is
    ///   not accepted for the type, the end is before the start, a date is out of range, or the
    ///   device identifier or a metadata key is empty.
    public init(
        uuid: UUID = UUID(), type: QuantityType, value: String, unit: String, startDate: Date, endDate: Date? = nil,
        source: RecordSource, device: SampleDevice? = nil, metadata: [String: String] = [:]
    ) throws(SampleValidationError) {
        if let fault = DecimalText.fault(in: value) { throw .invalidValue(value, fault) }
        guard type.allowedUnits.contains(unit) else { throw .unitNotAllowed(unit: unit, type: type) }
        guard let start = Self.milliseconds(startDate), let end = Self.milliseconds(endDate ?? startDate) else {
            throw .dateOutOfRange
        }
        guard start <= end else { throw .endBeforeStart }
        if let device, device.identifier.isEmpty { throw .emptyDeviceIdentifier }
        if metadata.keys.contains(where: \.isEmpty) { throw .emptyMetadataKey }
        self.init(
            unchecked: uuid, type: type, value: value, unit: unit, startDate: start, endDate: end, source: source,
            device: device, metadata: metadata)
    }

    /// Makes a sample without checking it: for values read back from storage, which must be
    /// shown (and found tampered) even when someone changed them to something invalid.
    package init(
        unchecked uuid: UUID, type: QuantityType, value: String, unit: String, startDate: Date, endDate: Date,
        source: RecordSource, device: SampleDevice?, metadata: [String: String]
    ) {
        self.uuid = uuid
        self.type = type
        self.value = value
        self.unit = unit
        self.startDate = startDate
        self.endDate = endDate
        self.source = source
        self.device = device
        self.metadata = metadata
    }

    /// A copy with one metadata entry set (or removed, for `nil`).
    public func settingMetadata(_ key: String, to value: String?) -> QuantitySample {
        var metadata = self.metadata
        metadata[key] = value
        return QuantitySample(
            unchecked: uuid, type: type, value: self.value, unit: unit, startDate: startDate, endDate: endDate,
            source: source, device: device, metadata: metadata)
    }

    /// A date rounded to the nearest millisecond; `nil` outside the years 1–9999.
    private static func milliseconds(_ date: Date) -> Date? {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        // 0001-01-01 and 10000-01-01 in milliseconds since 1970.
        guard ms.isFinite, ms >= -62_135_596_800_000, ms < 253_402_300_800_000 else { return nil }
        return Date(timeIntervalSince1970: ms / 1000)
    }
}
