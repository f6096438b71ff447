/// Metadata keys the store gives meaning to (HealthKit's `HKMetadataKey…` names).
public enum SampleMetadataKey {
    /// The base64 CMS SignedData over the sample's ``SampleSignatures/SignedSampleContent``
    /// (`HKMetadataKeyDigitalSignature`).
    public static let digitalSignature = "HKMetadataKeyDigitalSignature"
    /// Whether a person typed the value in rather than a device measuring it.
    public static let wasUserEntered = "HKWasUserEntered"
    /// Blood glucose meal time: `1` before a meal, `2` after.
    public static let bloodGlucoseMealTime = "HKMetadataKeyBloodGlucoseMealTime"
}
