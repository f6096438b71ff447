import ClinicalRecords

/// A section of the International Patient Summary: its LOINC code, title, whether IPS requires it,
/// and which records go in it.
public enum SummarySection: String, Sendable, CaseIterable {
    case problems, pastIllness, allergies, medications, immunizations, results, procedures, vitalSigns, devices

    /// The section's LOINC code (IPS 2.0.1).
    public var loinc: String {
        switch self {
        case .problems: return "11450-4"
        case .pastIllness: return "11348-0"
        case .allergies: return "48765-2"
        case .medications: return "10160-0"
        case .immunizations: return "11369-6"
        case .results: return "30954-2"
        case .procedures: return "47519-4"
        case .vitalSigns: return "8716-3"
        case .devices: return "46264-8"
        }
    }

    /// The LOINC display of the code.
    public var loincDisplay: String {
        switch self {
        case .problems: return "Problem list - Reported"
        case .pastIllness: return "History of Past illness Narrative"
        case .allergies: return "Allergies and adverse reactions Document"
        case .medications: return "History of Medication use Narrative"
        case .immunizations: return "History of Immunization Narrative"
        case .results: return "Relevant diagnostic tests/laboratory data Narrative"
        case .procedures: return "History of Procedures Document"
        case .vitalSigns: return "Vital signs"
        case .devices: return "History of medical device use"
        }
    }

    /// The title shown to a clinician.
    public var title: String {
        switch self {
        case .problems: return "Active Problems"
        case .pastIllness: return "Past Illnesses"
        case .allergies: return "Allergies and Intolerances"
        case .medications: return "Medications"
        case .immunizations: return "Immunizations"
        case .results: return "Results"
        case .procedures: return "Procedures"
        case .vitalSigns: return "Vital Signs"
        case .devices: return "Medical Devices"
        }
    }

    /// Problems, allergies and medications are required: empty, they say why (`emptyReason`).
    public var isRequired: Bool { self == .problems || self == .allergies || self == .medications }

    /// The clinical type whose records fill the section; `nil` for medical devices, which come
    /// from the Devices and DeviceUseStatements providers sent (context records).
    public var clinicalType: ClinicalType? {
        switch self {
        case .problems, .pastIllness: return .condition
        case .allergies: return .allergy
        case .medications: return .medication
        case .immunizations: return .immunization
        case .results: return .labResult
        case .procedures: return .procedure
        case .vitalSigns: return .vitalSign
        case .devices: return nil
        }
    }
}
