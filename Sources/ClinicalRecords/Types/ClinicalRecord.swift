import FHIR
import Foundation

/// A clinical record: one FHIR resource classified into a clinical type, with a display name.
///
/// Mirrors HealthKit's `HKClinicalRecord`: `addedDate` is when the record was added to the store
/// (HealthKit's start date); `clinicalDate` is the date the resource itself gives.
public struct ClinicalRecord: Sendable, Hashable {
    /// The record's clinical type.
    public let clinicalType: ClinicalType
    /// The name people see, e.g. "Hemoglobin A1c".
    public let displayName: String
    /// The FHIR resource, original bytes included.
    public let fhirResource: FHIRResource
    /// Where the record came from.
    public let source: RecordSource
    /// When the record was added to (or last changed in) the store.
    public let addedDate: Date
    /// The clinical date from the resource: effective, onset, occurrence, recorded, authored, issued…
    public let clinicalDate: FHIRDate?

    /// Makes a record as given; nothing is derived or checked here (``RecordBuilder`` derives type, name and date).
    public init(clinicalType: ClinicalType, displayName: String, fhirResource: FHIRResource, source: RecordSource, addedDate: Date, clinicalDate: FHIRDate?) {
        self.clinicalType = clinicalType
        self.displayName = displayName
        self.fhirResource = fhirResource
        self.source = source
        self.addedDate = addedDate
        self.clinicalDate = clinicalDate
    }

    /// The record's identity: source, resource type and resource id.
    public var identity: RecordIdentity {
        RecordIdentity(source: source.identifier, resourceType: fhirResource.resourceType, identifier: fhirResource.identifier)
    }
}

/// What identifies a record: (source, FHIR resource type, resource id).
public struct RecordIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The ``RecordSource/identifier`` of the record's source, e.g. a file name or a card issuer URL.
    public var source: String
    /// The resource's `resourceType`, e.g. `Observation`.
    public var resourceType: FHIRResourceType
    /// The resource's `id`; unique only together with ``source`` and ``resourceType``.
    public var identifier: String

    /// Makes an identity from its three parts; nothing is checked or normalized.
    public init(source: String, resourceType: FHIRResourceType, identifier: String) {
        self.source = source
        self.resourceType = resourceType
        self.identifier = identifier
    }

    public var description: String { "\(source)/\(resourceType.rawValue)/\(identifier)" }
}
