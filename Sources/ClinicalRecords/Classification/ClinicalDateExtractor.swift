import FHIR

/// Finds the clinical date a resource carries: when it happened, not when it was downloaded.
public enum ClinicalDateExtractor {
    /// The clinical date of a resource, by the first element its type defines that is present.
    public static func clinicalDate(resourceType: FHIRResourceType, json o: JSONObject) -> FHIRDate? {
        // Each candidate is tried in order; later ones are only read when earlier ones are absent.
        typealias Candidate = (JSONObject) -> FHIRDate?
        func date(_ key: String) -> Candidate { { $0.date(key) } }
        func periodStart(_ key: String) -> Candidate { { $0.period(key)?.start } }
        func nested(_ outer: String, _ inner: @escaping Candidate) -> Candidate { { $0.object(outer).flatMap(inner) } }
        let candidates: [Candidate]
        switch resourceType.rawValue {
        case "AllergyIntolerance":
            candidates = [date("onsetDateTime"), periodStart("onsetPeriod"), date("onset"), date("recordedDate"), date("assertedDate")]
        case "Condition":
            candidates = [date("onsetDateTime"), periodStart("onsetPeriod"), date("recordedDate"), date("dateRecorded"), date("assertedDate")]
        case "Immunization":
            candidates = [date("occurrenceDateTime"), date("date"), date("recorded")]
        case "Observation", "DiagnosticReport":
            candidates = [date("effectiveDateTime"), periodStart("effectivePeriod"), date("effectiveInstant"), date("issued")]
        case "MedicationRequest":
            candidates = [date("authoredOn"), nested("dispenseRequest", periodStart("validityPeriod"))]
        case "MedicationOrder":
            candidates = [date("dateWritten"), nested("dispenseRequest", periodStart("validityPeriod"))]
        case "MedicationStatement":
            candidates = [date("effectiveDateTime"), periodStart("effectivePeriod"), date("dateAsserted")]
        case "MedicationDispense":
            candidates = [date("whenHandedOver"), date("whenPrepared")]
        case "Procedure":
            candidates = [date("performedDateTime"), periodStart("performedPeriod")]
        case "DocumentReference":
            candidates = [date("date"), date("created"), nested("context", periodStart("period")), date("indexed")]
        case "Coverage":
            candidates = [periodStart("period")]
        default:
            candidates = [date("effectiveDateTime"), date("date"), date("issued")]
        }
        for candidate in candidates {
            if let d = candidate(o) { return d }
        }
        return nil
    }
}
