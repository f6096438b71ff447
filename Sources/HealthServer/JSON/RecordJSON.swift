import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import SmartHealthCards

/// How the app API writes records, deletions and cards.
enum RecordJSON {
    /// A clinical record with its FHIR resource inline, bytes as stored; `anchor` is the app's
    /// opaque anchor token.
    static func record(_ r: ClinicalRecord, anchor: String? = nil) -> ResponseJSON {
        var members: [(String, ResponseJSON)] = [
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

    /// A record or a context resource (Patient, Encounter…: no clinical type, a context
    /// category instead) found by identity.
    static func resource(_ s: StoredResource) -> ResponseJSON {
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

    /// A deletion, as an anchored query reports it, with the app's anchor token.
    static func deleted(_ d: DeletedRecord, anchor: String) -> ResponseJSON {
        .object([
            ("source", .string(d.identity.source)),
            ("resourceType", .string(d.identity.resourceType.rawValue)),
            ("id", .string(d.identity.identifier)),
            ("clinicalType", .string(d.clinicalType.name)),
            ("deletedDate", .date(d.deletedDate)),
            ("anchor", .string(anchor)),
        ])
    }

    /// A verifiable clinical record as HealthKit hands it to an app: the fields, and
    /// `dataRepresentation`, the compact JWS the app verifies itself.
    static func card(_ c: StoredVerifiableRecord) -> ResponseJSON {
        let r = c.record
        return .object([
            ("id", .string(c.identifier)),
            ("sourceType", .string(r.sourceType.rawValue)),
            ("issuerIdentifier", .string(r.issuerIdentifier)),
            ("recordTypes", .array(r.recordTypes.map { .string($0) })),
            ("itemNames", .array(r.itemNames.map { .string($0) })),
            ("subject", .object([("fullName", .string(r.subject.fullName)), ("dateOfBirth", .string(r.subject.dateOfBirth?.text))])),
            ("issuedDate", .date(r.issuedDate)),
            ("relevantDate", .date(r.relevantDate)),
            ("expirationDate", .date(r.expirationDate)),
            ("dataRepresentation", .string(r.jws)),
        ])
    }
}
