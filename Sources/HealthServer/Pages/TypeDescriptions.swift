import ClinicalRecords
import HealthStoreCore

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
        case .context(let c): return c.title
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
        case .context(.personalDetails): return "Who you are: name, birth date, address and identifiers such as social security, driver's licence or passport numbers."
        case .context(.visits): return "Hospital and clinic visits and appointments, with their reasons."
        case .context(.practitionerDetails): return "The clinicians, organizations and places that cared for you."
        case .context(.socialHistory): return "Smoking, alcohol, drug use, housing and other social history."
        case .context(.otherObservations): return "Questionnaire answers and assessments, such as depression or anxiety scores, and other observations."
        case .context(.claims): return "Insurance claims and explanations of benefit, which list diagnoses, procedures and vaccines."
        case .context(.carePlans): return "Care plans, goals and care teams, and the tests, procedures and referrals your clinicians ordered (such as an HIV test or a psychiatry referral)."
        case .context(.medicationDetails): return "Medicines given to you during care, and medicine details."
        case .context(.devices): return "Devices used in your care, such as implants or monitors."
        case .context(.other): return "Every other kind of record, such as family history, including ones this version does not recognize."
        }
    }

    static func sensitivity(_ t: HealthDataType) -> Sensitivity {
        switch t {
        case .clinical(.condition), .clinical(.labResult), .clinical(.medication), .clinical(.clinicalNote), .clinical(.procedure): return .high
        case .context(.personalDetails), .context(.visits), .context(.socialHistory), .context(.otherObservations), .context(.claims),
            .context(.medicationDetails), .context(.carePlans), .context(.other):
            return .high
        default: return .moderate
        }
    }
}
