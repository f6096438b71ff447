import FHIR

/// Decides which clinical type a FHIR resource is, the way HealthKit maps resource types.
///
/// An Observation is a lab result or a vital sign by its category; without a category, a
/// well-known vital-sign LOINC code makes it a vital sign and anything else a lab result.
/// Observations in other categories (survey, social history, exam…) and resource types
/// HealthKit does not expose (Patient, Encounter, Claim…) are not records.
public struct ClinicalClassifier: Sendable {
    /// The code tables used for vital-sign codes.
    public let tables: CodeTables

    /// Makes a classifier; `tables` only matter for Observations without a category (vital-sign LOINC codes).
    public init(tables: CodeTables = .shipped) {
        self.tables = tables
    }

    /// The clinical type of a resource, or `nil` when it is not a clinical record.
    public func clinicalType(of resource: FHIRResource, json: some FHIRObjectReading) -> ClinicalType? {
        clinicalType(ofType: resource.resourceType.rawValue, json: json)
    }

    /// The clinical type of a resource of type `resourceType` (e.g. one `contained` in
    /// another), or `nil` when it is not a clinical record.
    public func clinicalType(ofType resourceType: String, json: some FHIRObjectReading) -> ClinicalType? {
        switch resourceType {
        case "AllergyIntolerance": return .allergy
        case "Condition": return .condition
        case "Immunization": return .immunization
        case "MedicationOrder", "MedicationRequest", "MedicationStatement", "MedicationDispense", "MedicationAdministration": return .medication
        case "Procedure": return .procedure
        case "Coverage": return .coverage
        case "DiagnosticReport", "DocumentReference": return .clinicalNote
        case "Observation": return observationType(json)
        default: return nil
        }
    }

    /// The consent category of a resource: its clinical type, else a context category.
    public func category(of resource: FHIRResource, json: some FHIRObjectReading) -> ConsentCategory {
        category(ofType: resource.resourceType.rawValue, json: json)
    }

    /// The consent category of a resource of type `resourceType`.
    public func category(ofType resourceType: String, json: some FHIRObjectReading) -> ConsentCategory {
        if let t = clinicalType(ofType: resourceType, json: json) { return .clinical(t) }
        let codes = resourceType == "Observation" ? json.codeableConcepts("category").flatMap(\.coding).compactMap(\.code) : []
        return .context(ContextCategory(resourceType: resourceType, observationCategories: codes))
    }

    private func observationType(_ json: some FHIRObjectReading) -> ClinicalType? {
        let categories = json.codeableConcepts("category").flatMap(\.coding).compactMap(\.code)
        if categories.contains("vital-signs") { return .vitalSign }
        if categories.contains("laboratory") || categories.contains("LAB") { return .labResult }
        let loinc = json.codeableConcept("code")?.coding.filter { $0.system == CodeSystem.loinc }.compactMap(\.code) ?? []
        if loinc.contains(where: tables.vitalSignLOINCCodes.contains) { return .vitalSign }
        return categories.isEmpty ? .labResult : nil
    }
}
