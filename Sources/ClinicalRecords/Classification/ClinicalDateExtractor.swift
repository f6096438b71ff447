import FHIR

/// Finds the clinical date a resource carries: when it happened, not when it was downloaded.
public enum ClinicalDateExtractor {
    /// The clinical date of a resource, by the first element its type defines that is present.
    public static func clinicalDate(resourceType: FHIRResourceType, json o: JSONObject) -> FHIRDate? {
        let candidates: [FHIRDate?]
        switch resourceType.rawValue {
        case "AllergyIntolerance":
            candidates = [o.date("onsetDateTime"), o.period("onsetPeriod")?.start, o.date("onset"), o.date("recordedDate"), o.date("assertedDate")]
        case "Condition":
            candidates = [o.date("onsetDateTime"), o.period("onsetPeriod")?.start, o.date("recordedDate"), o.date("dateRecorded"), o.date("assertedDate")]
        case "Immunization":
            candidates = [o.date("occurrenceDateTime"), o.date("date"), o.date("recorded")]
        case "Observation", "DiagnosticReport":
            candidates = [o.date("effectiveDateTime"), o.period("effectivePeriod")?.start, o.date("effectiveInstant"), o.date("issued")]
        case "MedicationRequest":
            candidates = [o.date("authoredOn"), o.object("dispenseRequest")?.period("validityPeriod")?.start]
        case "MedicationOrder":
            candidates = [o.date("dateWritten"), o.object("dispenseRequest")?.period("validityPeriod")?.start]
        case "MedicationStatement":
            candidates = [o.date("effectiveDateTime"), o.period("effectivePeriod")?.start, o.date("dateAsserted")]
        case "MedicationDispense":
            candidates = [o.date("whenHandedOver"), o.date("whenPrepared")]
        case "Procedure":
            candidates = [o.date("performedDateTime"), o.period("performedPeriod")?.start]
        case "DocumentReference":
            candidates = [o.date("date"), o.date("created"), o.object("context")?.period("period")?.start, o.date("indexed")]
        case "Coverage":
            candidates = [o.period("period")?.start]
        default:
            candidates = [o.date("effectiveDateTime"), o.date("date"), o.date("issued")]
        }
        for case let d? in candidates { return d }
        return nil
    }
}
