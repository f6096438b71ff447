import ClinicalRecords
import HealthStore

/// What the consent page tells the person about each type: a title, what it holds and how
/// sensitive it is.
enum TypeDescriptions {
    /// How much a type can reveal.
    enum Sensitivity: String {
        case high = "Highly sensitive"
        case moderate = "Sensitive"
    }

    static func title(_ t: HealthDataType) -> String {
        switch t {
        case .clinical(let c): return c.title
        case .quantity(let q): return q.name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
        }
    }

    static func about(_ t: HealthDataType) -> String {
        switch t {
        case .clinical(.allergy): return "Allergies and intolerances, with reactions."
        case .clinical(.condition): return "Diagnoses and health problems, including mental health, infections and pregnancies."
        case .clinical(.immunization): return "Vaccines you received and when."
        case .clinical(.labResult): return "Laboratory tests and their results, such as blood tests, HIV or genetic tests."
        case .clinical(.medication): return "Prescriptions and medicines you take or took."
        case .clinical(.procedure): return "Operations and other procedures."
        case .clinical(.vitalSign): return "Blood pressure, heart rate, weight and other measurements taken by your providers."
        case .clinical(.coverage): return "Your insurance coverage."
        case .clinical(.clinicalNote): return "Notes and reports written by your clinicians."
        case .quantity: return "Measurements from your devices."
        }
    }

    static func sensitivity(_ t: HealthDataType) -> Sensitivity {
        switch t {
        case .clinical(.condition), .clinical(.labResult), .clinical(.medication), .clinical(.clinicalNote), .clinical(.procedure): return .high
        default: return .moderate
        }
    }
}
