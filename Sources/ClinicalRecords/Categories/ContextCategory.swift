/// The consent categories of resources that are not one of HealthKit's nine clinical types.
///
/// HealthKit exposes only clinical records; everything else a provider sends (the Patient with
/// its identifiers, visits, claims, care plans, survey answers…) would otherwise sit outside
/// consent. Each such resource belongs to exactly one of these categories, modelled on Android
/// Health Connect's medical-resource types where they fit, and an app reads it only when the
/// person granted that category. ``other`` catches every resource type not named here, so a
/// type added to FHIR later is never readable by default.
public enum ContextCategory: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Who the person is: Patient, RelatedPerson, Person (names, identifiers such as SSN or passport).
    case personalDetails = "personal-details"
    /// Encounters, episodes of care and appointments (and their reasons).
    case visits
    /// The people and places of care: practitioners, their roles, organizations, locations.
    case practitionerDetails = "practitioner-details"
    /// Observations in the social-history category (smoking, alcohol, housing…).
    case socialHistory = "social-history"
    /// Observations in any other non-clinical category: surveys (PHQ-9…), exams, therapy, activity.
    case otherObservations = "other-observations"
    /// Claims, explanations of benefit and other billing resources (they list diagnoses and vaccines).
    case claims
    /// Care plans, goals and care teams, and orders and referrals (which name the tests and
    /// procedures asked for).
    case carePlans = "care-plans"
    /// Medication details outside HealthKit's medication records: administrations, medication definitions.
    case medicationDetails = "medication-details"
    /// Devices and their use.
    case devices
    /// Everything else (family history, provenance, imaging studies, unknown types); readable only
    /// when granted by name.
    case other

    /// The name used on the command line, in JSON and in grants, e.g. `personal-details`.
    public var name: String { rawValue }

    /// A heading for people.
    public var title: String {
        switch self {
        case .personalDetails: return "Personal Details"
        case .visits: return "Visits"
        case .practitionerDetails: return "Practitioner Details"
        case .socialHistory: return "Social History"
        case .otherObservations: return "Other Observations"
        case .claims: return "Claims and Billing"
        case .carePlans: return "Care Plans, Orders and Referrals"
        case .medicationDetails: return "Medication Details"
        case .devices: return "Devices"
        case .other: return "Other Records"
        }
    }

    /// The category of a FHIR resource type that is not a clinical record.
    ///
    /// Observations are sorted by their category codes (``init(observationCategories:)``); any
    /// resource type not listed is ``other``.
    public init(resourceType: String, observationCategories: [String] = []) {
        if resourceType == "Observation" {
            self.init(observationCategories: observationCategories)
        } else {
            self = Self.byResourceType[resourceType] ?? .other
        }
    }

    /// The category of a non-clinical Observation from its category codes.
    public init(observationCategories: [String]) {
        self = observationCategories.contains("social-history") ? .socialHistory : .otherObservations
    }

    /// Resource types with a fixed category (Observations are decided by their codes).
    public static let byResourceType: [String: ContextCategory] = {
        var map: [String: ContextCategory] = [:]
        let lists: [(ContextCategory, [String])] = [
            (.personalDetails, ["Patient", "RelatedPerson", "Person"]),
            (.visits, ["Encounter", "EpisodeOfCare", "Appointment", "AppointmentResponse", "Schedule", "Slot"]),
            (.practitionerDetails, ["Practitioner", "PractitionerRole", "Organization", "OrganizationAffiliation", "Location", "HealthcareService", "Endpoint"]),
            (.claims, [
                "Claim", "ClaimResponse", "ExplanationOfBenefit", "CoverageEligibilityRequest", "CoverageEligibilityResponse", "EligibilityRequest",
                "EligibilityResponse", "Account", "ChargeItem", "Invoice", "PaymentNotice", "PaymentReconciliation", "EnrollmentRequest", "EnrollmentResponse",
            ]),
            (.carePlans, ["CarePlan", "Goal", "CareTeam", "ServiceRequest", "NutritionOrder", "RequestGroup", "ProcedureRequest", "ReferralRequest"]),
            (.medicationDetails, ["Medication", "MedicationKnowledge", "Substance"]),
            (.otherObservations, ["QuestionnaireResponse", "ClinicalImpression", "RiskAssessment", "DetectedIssue"]),
            (.devices, ["Device", "DeviceRequest", "DeviceUseStatement", "DeviceMetric", "DeviceComponent"]),
        ]
        for (category, types) in lists { for t in types { map[t] = category } }
        return map
    }()

    public static func < (a: ContextCategory, b: ContextCategory) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
