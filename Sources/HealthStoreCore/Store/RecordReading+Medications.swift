import ClinicalRecords
import FHIR

extension RecordReading {
    /// The person's medication list (``MedicationList``): every medication record, with the
    /// Medications they reference resolved in the record's own source.
    public func medicationList() async throws -> MedicationList {
        try await medicationList(of: try await records(RecordQuery(type: .medication, sort: RecordSort(.clinical))))
    }

    /// The medication list of these medication records, the Medications they reference
    /// resolved in each record's own source.
    public func medicationList(of records: [ClinicalRecord]) async throws -> MedicationList {
        var medications: [String: JSONObject] = [:]
        for stored in try await contextResources(ofType: FHIRResourceType("Medication"), source: nil) {
            guard let object = try? stored.resource.json() else { continue }
            medications[stored.source.identifier + "\u{1F}" + stored.resource.identifier] = object
        }
        return MedicationList(records: records) { source, reference in
            guard let id = reference.split(separator: "/").last, reference.contains("Medication/") || !reference.contains("/") else { return nil }
            return medications[source + "\u{1F}" + id]
        }
    }
}
