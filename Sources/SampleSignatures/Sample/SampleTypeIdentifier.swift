/// A sample type, named as HealthKit names it (`HKQuantityTypeIdentifier…`).
///
/// Any non-empty string is accepted; the constants cover the device
/// measurements that are typically signed.
public struct SampleTypeIdentifier: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The identifier text.
    public let rawValue: String

    /// Wraps an identifier without checking it; an empty one fails only when signed content is built.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The identifier text.
    public var description: String { rawValue }

    /// Blood glucose (UCUM `mmol/L` or `mg/dL`).
    public static let bloodGlucose = Self(rawValue: "HKQuantityTypeIdentifierBloodGlucose")
    /// Systolic blood pressure (`mm[Hg]`).
    public static let bloodPressureSystolic = Self(rawValue: "HKQuantityTypeIdentifierBloodPressureSystolic")
    /// Diastolic blood pressure (`mm[Hg]`).
    public static let bloodPressureDiastolic = Self(rawValue: "HKQuantityTypeIdentifierBloodPressureDiastolic")
    /// Body mass (`kg`).
    public static let bodyMass = Self(rawValue: "HKQuantityTypeIdentifierBodyMass")
    /// Body temperature (`Cel`).
    public static let bodyTemperature = Self(rawValue: "HKQuantityTypeIdentifierBodyTemperature")
    /// Heart rate (`/min`).
    public static let heartRate = Self(rawValue: "HKQuantityTypeIdentifierHeartRate")
    /// Oxygen saturation (`%`).
    public static let oxygenSaturation = Self(rawValue: "HKQuantityTypeIdentifierOxygenSaturation")
    /// Respiratory rate (`/min`).
    public static let respiratoryRate = Self(rawValue: "HKQuantityTypeIdentifierRespiratoryRate")
    /// Forced expiratory volume in one second (`L`).
    public static let forcedExpiratoryVolume1 = Self(rawValue: "HKQuantityTypeIdentifierForcedExpiratoryVolume1")
    /// Peak expiratory flow rate (`L/min`).
    public static let peakExpiratoryFlowRate = Self(rawValue: "HKQuantityTypeIdentifierPeakExpiratoryFlowRate")
}
