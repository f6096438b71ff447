import SampleSignatures

/// The kinds of quantity sample the store keeps (`HKQuantityTypeIdentifier`), each with the
/// UCUM units a value of that kind may be written in.
public enum QuantityType: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case bloodGlucose = "blood-glucose"
    case bloodPressureSystolic = "blood-pressure-systolic"
    case bloodPressureDiastolic = "blood-pressure-diastolic"
    case bodyMass = "body-mass"
    case bodyTemperature = "body-temperature"
    case heartRate = "heart-rate"
    case oxygenSaturation = "oxygen-saturation"
    case respiratoryRate = "respiratory-rate"
    case forcedExpiratoryVolume1 = "forced-expiratory-volume-1"
    case peakExpiratoryFlowRate = "peak-expiratory-flow-rate"

    /// The name used on the command line and in JSON, e.g. `blood-glucose`.
    public var name: String { rawValue }

    /// Reads a command-line name (`blood-glucose`) or a HealthKit identifier
    /// (`HKQuantityTypeIdentifierBloodGlucose`).
    public init?(name: String) {
        if let t = QuantityType(rawValue: name) { self = t; return }
        guard let t = QuantityType.allCases.first(where: { $0.identifier == name }) else { return nil }
        self = t
    }

    /// HealthKit's identifier for the type, which is also what a signed sample's content names.
    public var identifier: String {
        switch self {
        case .bloodGlucose: return "HKQuantityTypeIdentifierBloodGlucose"
        case .bloodPressureSystolic: return "HKQuantityTypeIdentifierBloodPressureSystolic"
        case .bloodPressureDiastolic: return "HKQuantityTypeIdentifierBloodPressureDiastolic"
        case .bodyMass: return "HKQuantityTypeIdentifierBodyMass"
        case .bodyTemperature: return "HKQuantityTypeIdentifierBodyTemperature"
        case .heartRate: return "HKQuantityTypeIdentifierHeartRate"
        case .oxygenSaturation: return "HKQuantityTypeIdentifierOxygenSaturation"
        case .respiratoryRate: return "HKQuantityTypeIdentifierRespiratoryRate"
        case .forcedExpiratoryVolume1: return "HKQuantityTypeIdentifierForcedExpiratoryVolume1"
        case .peakExpiratoryFlowRate: return "HKQuantityTypeIdentifierPeakExpiratoryFlowRate"
        }
    }

    /// The identifier as the signed-sample content spells it.
    public var sampleTypeIdentifier: SampleTypeIdentifier { SampleTypeIdentifier(rawValue: identifier) }

    /// The UCUM units accepted for values of this type; the first is the usual one.
    ///
    /// The list is deliberately short: the units devices write for these measurements, in
    /// their UCUM spelling (`mm[Hg]`, `Cel`, `/min`), not every unit UCUM could convert to.
    public var allowedUnits: [String] {
        switch self {
        case .bloodGlucose: return ["mmol/L", "mg/dL"]
        case .bloodPressureSystolic, .bloodPressureDiastolic: return ["mm[Hg]", "kPa"]
        case .bodyMass: return ["kg", "g", "[lb_av]"]
        case .bodyTemperature: return ["Cel", "[degF]", "K"]
        case .heartRate: return ["/min", "{beats}/min"]
        case .oxygenSaturation: return ["%"]
        case .respiratoryRate: return ["/min", "{breaths}/min"]
        case .forcedExpiratoryVolume1: return ["L", "mL"]
        case .peakExpiratoryFlowRate: return ["L/min", "L/s"]
        }
    }

    /// A heading for people, e.g. "Blood Glucose".
    public var title: String {
        switch self {
        case .bloodGlucose: return "Blood Glucose"
        case .bloodPressureSystolic: return "Blood Pressure Systolic"
        case .bloodPressureDiastolic: return "Blood Pressure Diastolic"
        case .bodyMass: return "Body Mass"
        case .bodyTemperature: return "Body Temperature"
        case .heartRate: return "Heart Rate"
        case .oxygenSaturation: return "Oxygen Saturation"
        case .respiratoryRate: return "Respiratory Rate"
        case .forcedExpiratoryVolume1: return "Forced Expiratory Volume, 1 s"
        case .peakExpiratoryFlowRate: return "Peak Expiratory Flow Rate"
        }
    }

    public static func < (a: QuantityType, b: QuantityType) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
