/// The kinds of clinical record HealthKit knows (`HKClinicalTypeIdentifier`).
public enum ClinicalType: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case allergy
    case condition
    case immunization
    case labResult = "lab-result"
    case medication
    case procedure
    case vitalSign = "vital-sign"
    case coverage
    case clinicalNote = "clinical-note"

    /// The name used on the command line and in JSON, e.g. `lab-result`.
    public var name: String { rawValue }

    /// Reads a command-line name (`lab-result`) or a HealthKit identifier (`HKClinicalTypeIdentifierLabResultRecord`).
    public init?(name: String) {
        if let t = ClinicalType(rawValue: name) { self = t; return }
        guard let t = ClinicalType.allCases.first(where: { $0.identifier == name }) else { return nil }
        self = t
    }

    /// HealthKit's identifier for the type.
    public var identifier: String {
        switch self {
        case .allergy: return "HKClinicalTypeIdentifierAllergyRecord"
        case .condition: return "HKClinicalTypeIdentifierConditionRecord"
        case .immunization: return "HKClinicalTypeIdentifierImmunizationRecord"
        case .labResult: return "HKClinicalTypeIdentifierLabResultRecord"
        case .medication: return "HKClinicalTypeIdentifierMedicationRecord"
        case .procedure: return "HKClinicalTypeIdentifierProcedureRecord"
        case .vitalSign: return "HKClinicalTypeIdentifierVitalSignRecord"
        case .coverage: return "HKClinicalTypeIdentifierCoverageRecord"
        case .clinicalNote: return "HKClinicalTypeIdentifierClinicalNoteRecord"
        }
    }

    /// A heading for people, e.g. "Lab Results".
    public var title: String {
        switch self {
        case .allergy: return "Allergies"
        case .condition: return "Conditions"
        case .immunization: return "Immunizations"
        case .labResult: return "Lab Results"
        case .medication: return "Medications"
        case .procedure: return "Procedures"
        case .vitalSign: return "Vital Signs"
        case .coverage: return "Coverage"
        case .clinicalNote: return "Clinical Notes"
        }
    }

    /// The FHIR resource types whose resources can be records of this type.
    public var resourceTypes: [String] {
        switch self {
        case .allergy: return ["AllergyIntolerance"]
        case .condition: return ["Condition"]
        case .immunization: return ["Immunization"]
        case .labResult, .vitalSign: return ["Observation"]
        case .medication: return ["MedicationAdministration", "MedicationDispense", "MedicationOrder", "MedicationRequest", "MedicationStatement"]
        case .procedure: return ["Procedure"]
        case .coverage: return ["Coverage"]
        case .clinicalNote: return ["DiagnosticReport", "DocumentReference"]
        }
    }

    public static func < (a: ClinicalType, b: ClinicalType) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
