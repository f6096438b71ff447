/// The fields of a signed sample, named as they appear in
/// ``SampleVerificationOutcome/tampered(fields:)`` and in errors.
public enum SampleField: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The sample type identifier, e.g. `HKQuantityTypeIdentifierBloodGlucose`.
    case sampleType
    /// The exact decimal text of the value.
    case value
    /// The UCUM unit.
    case unit
    /// The start of the sample.
    case startDate
    /// The end of the sample.
    case endDate
    /// The identifier of the device that measured and signed the sample.
    case deviceIdentifier
    /// The extra key–value pairs.
    case extras

    /// The field's name.
    public var description: String { rawValue }
}
