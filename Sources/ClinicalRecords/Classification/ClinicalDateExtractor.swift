import FHIR

/// Finds the clinical date a resource carries: when it happened, not when it was downloaded.
public enum ClinicalDateExtractor {
    /// The clinical date of a resource, by the first element its type defines that is present.
    public static func clinicalDate(resourceType: FHIRResourceType, json o: some FHIRObjectReading) -> FHIRDate? {
        // Candidates are tried in order; later ones are only read when earlier ones are absent.
        switch resourceType.rawValue {
        case "AllergyIntolerance":
            return o.date("onsetDateTime") ?? o.period("onsetPeriod")?.start ?? o.date("onset") ?? o.date("recordedDate") ?? o.date("assertedDate")
        case "Condition":
            return o.date("onsetDateTime") ?? o.period("onsetPeriod")?.start ?? o.date("recordedDate") ?? o.date("dateRecorded") ?? o.date("assertedDate")
        case "Immunization":
            return o.date("occurrenceDateTime") ?? o.date("date") ?? o.date("recorded")
        case "Observation", "DiagnosticReport":
            return o.date("effectiveDateTime") ?? o.period("effectivePeriod")?.start ?? o.date("effectiveInstant") ?? o.date("issued")
        case "MedicationRequest":
            return o.date("authoredOn") ?? o.object("dispenseRequest")?.period("validityPeriod")?.start
        case "MedicationOrder":
            return o.date("dateWritten") ?? o.object("dispenseRequest")?.period("validityPeriod")?.start
        case "MedicationStatement":
            return o.date("effectiveDateTime") ?? o.period("effectivePeriod")?.start ?? o.date("dateAsserted")
        case "MedicationDispense":
            return o.date("whenHandedOver") ?? o.date("whenPrepared")
        case "MedicationAdministration":
            return o.date("effectiveDateTime") ?? o.period("effectivePeriod")?.start
        case "Procedure":
            return o.date("performedDateTime") ?? o.period("performedPeriod")?.start
        case "DocumentReference":
            return o.date("date") ?? o.date("created") ?? o.object("context")?.period("period")?.start ?? o.date("indexed")
        case "Coverage":
            return o.period("period")?.start
        default:
            return o.date("effectiveDateTime") ?? o.date("date") ?? o.date("issued")
        }
    }
}
