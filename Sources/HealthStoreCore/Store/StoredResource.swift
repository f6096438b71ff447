import ClinicalRecords
import FHIR
import Foundation

/// A resource as the store holds it: a clinical record, or context such as the Patient.
public struct StoredResource: Sendable, Hashable {
    /// The FHIR resource, original bytes included.
    public let resource: FHIRResource
    /// Where it came from.
    public let source: RecordSource
    /// The clinical type; `nil` for context (Patient, Encounter, Organization…).
    public let clinicalType: ClinicalType?
    /// The consent category: the clinical type, or the context category (every resource has one).
    public let category: ConsentCategory
    /// The name people see, computed when the resource was stored (context resources have one too).
    public let displayName: String
    /// When it was first added.
    public let addedDate: Date
    /// The clinical date from the resource.
    public let clinicalDate: FHIRDate?
    /// The anchor of its latest change.
    public let anchor: QueryAnchor

    /// Makes a stored resource (engines make these from their rows).
    package init(
        resource: FHIRResource, source: RecordSource, clinicalType: ClinicalType?, category: ConsentCategory, displayName: String, addedDate: Date,
        clinicalDate: FHIRDate?, anchor: QueryAnchor
    ) {
        self.resource = resource
        self.source = source
        self.clinicalType = clinicalType
        self.category = category
        self.displayName = displayName
        self.addedDate = addedDate
        self.clinicalDate = clinicalDate
        self.anchor = anchor
    }

    /// The date a history window judges it by: its clinical date's first instant, else the
    /// date it was added (as the engines' SQL does).
    public var windowDate: Date { clinicalDate?.date ?? addedDate }

    /// The clinical record, when the resource is one.
    public var clinicalRecord: ClinicalRecord? {
        guard let clinicalType else { return nil }
        return ClinicalRecord(
            clinicalType: clinicalType, displayName: displayName, fhirResource: resource, source: source,
            addedDate: addedDate, clinicalDate: clinicalDate)
    }

    /// The resource's identity: its source, resource type and resource id.
    public var identity: RecordIdentity {
        RecordIdentity(source: source.identifier, resourceType: resource.resourceType, identifier: resource.identifier)
    }
}
