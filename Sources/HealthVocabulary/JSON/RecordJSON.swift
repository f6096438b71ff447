import ClinicalRecords
import FHIR
import HealthStoreCore

/// Records, context resources and deletions as both front ends write them.
///
/// Keys follow the app API as published (docs/server.md, openapi.json): `id` is the FHIR
/// resource id, `source` the source's identifier, dates are ``InstantText``, and `resource` is
/// the FHIR resource inline, its bytes exactly as stored.
public enum RecordJSON {
    /// A clinical record; `anchor`, in change feeds, is where its latest change sits.
    public static func record(_ r: ClinicalRecord, anchor: String? = nil) -> EncodedJSON {
        var members: [(String, EncodedJSON)] = [
            ("source", .string(r.source.identifier)),
            ("sourceName", .string(r.source.name)),
            ("resourceType", .string(r.fhirResource.resourceType.rawValue)),
            ("id", .string(r.fhirResource.identifier)),
            ("clinicalType", .string(r.clinicalType.name)),
            ("displayName", .string(r.displayName)),
            ("fhirVersion", .string(r.fhirResource.fhirVersion.stringRepresentation)),
            ("clinicalDate", .string(r.clinicalDate?.text)),
            ("addedDate", .date(r.addedDate)),
        ]
        if let anchor { members.append(("anchor", .string(anchor))) }
        members.append(("resource", .raw(r.fhirResource.data)))
        return .object(members)
    }

    /// A record or a context resource (Patient, Encounter…) found by identity: a context
    /// resource has no clinical type (`null`) and names its consent `category` instead.
    public static func resource(_ s: StoredResource) -> EncodedJSON {
        if let record = s.clinicalRecord { return self.record(record) }
        return .object([
            ("source", .string(s.source.identifier)),
            ("sourceName", .string(s.source.name)),
            ("resourceType", .string(s.resource.resourceType.rawValue)),
            ("id", .string(s.resource.identifier)),
            ("clinicalType", .null),
            ("category", .string(s.category.rawValue)),
            ("displayName", .string(s.displayName)),
            ("fhirVersion", .string(s.resource.fhirVersion.stringRepresentation)),
            ("clinicalDate", .string(s.clinicalDate?.text)),
            ("addedDate", .date(s.addedDate)),
            ("resource", .raw(s.resource.data)),
        ])
    }

    /// A deletion in a change feed: the deleted record's identity, with the anchor of the
    /// deletion.
    public static func deleted(_ d: DeletedRecord, anchor: String) -> EncodedJSON {
        .object([
            ("source", .string(d.identity.source)),
            ("resourceType", .string(d.identity.resourceType.rawValue)),
            ("id", .string(d.identity.identifier)),
            ("clinicalType", .string(d.clinicalType.name)),
            ("deletedDate", .date(d.deletedDate)),
            ("anchor", .string(anchor)),
        ])
    }

    /// The records of a record query, in the query's order.
    public static func list(_ records: [ClinicalRecord]) -> EncodedJSON {
        .array(records.map { record($0) })
    }

    /// What an anchored query found, `{"added", "deleted", "anchor"}`, each change with its
    /// anchor and every anchor written by `anchors` (the owner's or the app's).
    public static func changes(_ result: AnchoredQueryResult, anchors: AnchorCoding) -> EncodedJSON {
        .object([
            ("added", .array(zip(result.added, result.addedAnchors).map { record($0, anchor: anchors.encode($1)) })),
            ("deleted", .array(result.deleted.map { deleted($0, anchor: anchors.encode($0.anchor)) })),
            ("anchor", .string(anchors.encode(result.anchor))),
        ])
    }
}
