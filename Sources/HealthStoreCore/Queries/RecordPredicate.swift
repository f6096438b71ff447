import ClinicalRecords
import FHIR
import Foundation

/// A condition on records, combinable with AND — HealthKit's clinical-record predicates as values.
public indirect enum RecordPredicate: Sendable, Hashable {
    /// Records whose FHIR resource type is this one.
    case fhirResourceType(FHIRResourceType)
    /// The one record with this source, resource type and resource id.
    case identity(source: String, resourceType: FHIRResourceType, identifier: String)
    /// Records from this source (by its identifier).
    case source(String)
    /// Records added to the store at or after `from` and before `to`.
    case addedDate(from: Date?, to: Date?)
    /// Records whose clinical date starts at or after `from` and before `to`.
    case clinicalDate(from: Date?, to: Date?)
    /// Resources of these consent categories only, each only when first added at or before its
    /// window's anchor: what an app's grants let it see (``AppView`` adds it to every query).
    /// An empty list matches nothing. On deletions it matches the deleted record's type and
    /// first-added anchor.
    case visible([TypeWindow<ConsentCategory>])
    /// All of these.
    case and([RecordPredicate])

    /// The predicates this one is an AND of, flattened.
    public var conjuncts: [RecordPredicate] {
        if case .and(let list) = self { return list.flatMap(\.conjuncts) }
        return [self]
    }
}
