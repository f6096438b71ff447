import ClinicalRecords
import FHIR

extension AppView {
    /// The person's medication list as the app may read it: built from the medication records
    /// it may see (only those behind the medications picked for it, when the person picked),
    /// with the Medications it may see resolved, and the person's nicknames and archived flags
    /// (as HealthKit's `HKUserAnnotatedMedication`). Audited.
    public func medications() async throws -> [AnnotatedMedication] {
        let v = try await visibility()
        let windows = v.records(.medication)
        let records = try await store.records(RecordQuery(type: .medication, predicate: .visible(windows), sort: RecordSort(.clinical)))
        var resolved: [String: JSONObject] = [:]
        let details = v.recordWindows.filter { $0.type == .context(.medicationDetails) }
        for stored in try await store.contextResources(ofType: FHIRResourceType("Medication"), source: nil, visible: details) {
            guard let object = try? stored.resource.json() else { continue }
            resolved[stored.source.identifier + "\u{1F}" + stored.resource.identifier] = object
        }
        let list = MedicationList(records: records) { source, reference in
            guard let id = reference.split(separator: "/").last else { return nil }
            return resolved[source + "\u{1F}" + id]
        }
        try await audit("medications", clinical: .medication, count: list.entries.count)
        let notes = list.entries.isEmpty ? [:] : try await store.medicationNotes()
        return list.entries.map { AnnotatedMedication(entry: $0, note: notes[$0.id] ?? MedicationNote()) }
    }
}
