import FHIR

/// How a search parameter reads a resource.
enum SearchParameterKind: Sendable, Equatable {
    /// The resource's clinical date as the store extracted it, compared in SQL.
    case clinicalDate
    /// Codes in these elements (CodeableConcept, Coding, Identifier or a plain code), matched in memory.
    case token([String])
    /// Text in these elements (and everything inside them), matched in memory by prefix.
    case string([String])
    /// A date element of the resource, compared in memory (the Patient's birth date).
    case date(String)
    /// The patient the resource is about: always the person, so it matches everything or nothing.
    case patient
    /// `_id`: the served id.
    case id
    /// `_lastUpdated`: when the store first added the resource.
    case lastUpdated
}

/// A search parameter the server answers for a resource type.
struct SearchParameterDefinition: Sendable, Equatable {
    /// The parameter's name in the query.
    let name: String
    /// FHIR's search parameter type (`token`, `date`, `string`, `reference`), for the CapabilityStatement.
    let type: String
    /// How it reads a resource.
    let kind: SearchParameterKind
    /// A definition URL for the CapabilityStatement, when FHIR defines the parameter for the type.
    let definition: String?

    init(_ name: String, _ type: String, _ kind: SearchParameterKind, _ definition: String? = nil) {
        (self.name, self.type, self.kind, self.definition) = (name, type, kind, definition)
    }
}

/// The resource types the R4 base serves, with their search parameters.
///
/// The list is every R4 type the store can hold a resource of — the types of the clinical
/// records (``ClinicalType/resourceTypes``, without DSTU2's MedicationOrder), the context
/// types (``ContextCategory/byResourceType``, without names R4 dropped) and the common types
/// that fall under ``ContextCategory/other`` — so a type name outside it is a 404. Parameters
/// are at least US Core's mandatory ones for the types we hold.
enum FHIRResourceTypes {
    /// Parameters every type answers: `_id` (a served id) and `_lastUpdated` (when the store first added it).
    static let common = [
        SearchParameterDefinition("_id", "token", .id, "http://hl7.org/fhir/SearchParameter/Resource-id"),
        SearchParameterDefinition("_lastUpdated", "date", .lastUpdated, "http://hl7.org/fhir/SearchParameter/Resource-lastUpdated"),
    ]

    /// The served types, by name, with the parameters beyond ``common``.
    static let parameters: [String: [SearchParameterDefinition]] = {
        let patient = SearchParameterDefinition("patient", "reference", .patient)
        let subject = SearchParameterDefinition("subject", "reference", .patient)
        let date = SearchParameterDefinition("date", "date", .clinicalDate)
        let status = SearchParameterDefinition("status", "token", .token(["status"]))
        func token(_ name: String, _ elements: String...) -> SearchParameterDefinition { .init(name, "token", .token(elements)) }
        func string(_ name: String, _ elements: String...) -> SearchParameterDefinition { .init(name, "string", .string(elements)) }
        var table: [String: [SearchParameterDefinition]] = [
            "Observation": [patient, subject, token("category", "category"), token("code", "code"), date, status],
            "Condition": [
                patient, subject, token("category", "category"), token("code", "code"), token("clinical-status", "clinicalStatus"),
                token("verification-status", "verificationStatus"), .init("onset-date", "date", .clinicalDate),
            ],
            "DiagnosticReport": [patient, subject, token("category", "category"), token("code", "code"), date, status],
            "DocumentReference": [patient, subject, token("category", "category"), token("type", "type"), date, status],
            "Procedure": [patient, subject, token("code", "code"), date, status],
            "Immunization": [patient, token("vaccine-code", "vaccineCode"), date, status],
            "AllergyIntolerance": [patient, token("code", "code"), token("clinical-status", "clinicalStatus")],
            "MedicationRequest": [
                patient, subject, token("code", "medicationCodeableConcept"), token("intent", "intent"), status,
                .init("authoredon", "date", .clinicalDate),
            ],
            "MedicationStatement": [patient, subject, token("code", "medicationCodeableConcept"), .init("effective", "date", .clinicalDate), status],
            "MedicationDispense": [patient, subject, token("code", "medicationCodeableConcept"), status],
            "Coverage": [patient, status],
            "Patient": [
                token("identifier", "identifier"), string("name", "name"), string("family", "name"), string("given", "name"),
                .init("birthdate", "date", .date("birthDate")), token("gender", "gender"),
            ],
            "Encounter": [patient, subject, token("class", "class"), token("type", "type"), token("identifier", "identifier"), status],
            "Practitioner": [token("identifier", "identifier"), string("name", "name")],
            "PractitionerRole": [token("specialty", "specialty")],
            "Organization": [token("identifier", "identifier"), string("name", "name")],
            "Location": [string("name", "name")],
            "CarePlan": [patient, subject, token("category", "category"), status],
            "CareTeam": [patient, subject, status],
            "Goal": [patient, subject, token("lifecycle-status", "lifecycleStatus")],
            "ServiceRequest": [patient, subject, token("category", "category"), token("code", "code"), status],
            "Device": [patient, token("type", "type")],
            "Claim": [patient, status],
            "ExplanationOfBenefit": [patient, status],
            "QuestionnaireResponse": [patient, subject, status],
            "MedicationAdministration": [patient, subject, token("code", "medicationCodeableConcept"), status],
            "FamilyMemberHistory": [patient, status],
            "ImagingStudy": [patient, subject, status],
            "Specimen": [patient, subject],
            "Provenance": [patient],
            "Media": [patient, subject, status],
            "Composition": [patient, subject, token("type", "type"), date, status],
            "RelatedPerson": [patient],
        ]
        let others = [
            "EpisodeOfCare", "Appointment", "AppointmentResponse", "Schedule", "Slot", "OrganizationAffiliation", "HealthcareService", "Endpoint",
            "ClaimResponse", "CoverageEligibilityRequest", "CoverageEligibilityResponse", "Account", "ChargeItem", "Invoice", "PaymentNotice",
            "PaymentReconciliation", "EnrollmentRequest", "EnrollmentResponse", "NutritionOrder", "RequestGroup", "Medication", "MedicationKnowledge",
            "Substance", "ClinicalImpression", "RiskAssessment", "DetectedIssue", "DeviceRequest", "DeviceUseStatement", "DeviceMetric", "Person",
            "BodyStructure", "Communication", "Consent", "Flag", "List", "AdverseEvent", "Basic",
        ]
        for name in others where table[name] == nil { table[name] = [] }
        return table
    }()

    /// Whether the R4 base serves a type.
    static func isServed(_ type: String) -> Bool { parameters[type] != nil }

    /// The served types, sorted.
    static var served: [String] { parameters.keys.sorted() }

    /// A type's parameter by name (``common`` included).
    static func parameter(_ name: String, of type: String) -> SearchParameterDefinition? {
        common.first { $0.name == name } ?? parameters[type]?.first { $0.name == name }
    }
}
