import Foundation

/// A sample's values as a store keeps them, the input to signing and to
/// checking a stored signature.
///
/// The store layer maps its own sample type to this. Dates are compared at
/// millisecond precision, the precision ``SignedSampleContent`` keeps.
public struct SampleValues: Hashable, Sendable {
    /// The HealthKit type identifier, e.g. `HKQuantityTypeIdentifierHeartRate`; signing rejects an empty one.
    public var sampleType: SampleTypeIdentifier
    /// The value's exact decimal text (`"5.40"` is not `"5.4"`).
    public var value: String
    /// The UCUM unit, e.g. `mmol/L`.
    public var unit: String
    /// The start of the sample.
    public var startDate: Date
    /// The end of the sample (equal to the start for an instantaneous reading).
    public var endDate: Date
    /// The measuring device's identifier (e.g. its serial number or UDI).
    public var deviceIdentifier: String
    /// Extra key–value pairs (HealthKit metadata the device chose to sign).
    public var extras: [String: String]

    /// Creates sample values as given; nothing is checked until ``SignedSampleContent/init(_:)`` builds the content.
    public init(
        sampleType: SampleTypeIdentifier,
        value: String,
        unit: String,
        startDate: Date,
        endDate: Date,
        deviceIdentifier: String,
        extras: [String: String] = [:]
    ) {
        self.sampleType = sampleType
        self.value = value
        self.unit = unit
        self.startDate = startDate
        self.endDate = endDate
        self.deviceIdentifier = deviceIdentifier
        self.extras = extras
    }
}
