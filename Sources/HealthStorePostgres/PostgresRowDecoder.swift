import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

/// Reads resource and tombstone rows back into values, opening sealed columns.
enum PostgresRowDecoder {
    static let selectColumns = """
        SELECT r.id, s.identifier, s.name, r.resource_type, r.clinical_type, r.resource_id, r.display_name, r.fhir_version,
        r.source_url, r.clinical_date_text, r.added_date, r.anchor, r.data, r.category
        FROM resource r JOIN source s ON s.person_id = r.person_id AND s.id = r.source_id
        """

    static let tombstoneColumns = """
        SELECT t.anchor, s.identifier, s.name, t.resource_type, t.clinical_type, t.resource_id, t.deleted_date
        FROM tombstone t JOIN source s ON s.person_id = t.person_id AND s.id = t.source_id
        """

    static func stored(_ row: PGRow, sealer: any RecordSealer) throws -> StoredResource {
        let type = FHIRResourceType(try row.string(3))
        let id = try row.opened(5, sealer)
        let versionText = try row.string(7)
        guard let version = try? FHIRVersion(versionString: versionText) else {
            throw HealthStoreError.corruptRecord("\(type.rawValue)/\(id): bad FHIR version \(versionText)")
        }
        let url = try row.optionalData(8).map { String(decoding: try sealer.open($0), as: UTF8.self) }.flatMap(URL.init(string:))
        let resource = FHIRResource(storedData: try sealer.open(try row.data(12)), resourceType: type, identifier: id, fhirVersion: version, sourceURL: url)
        return StoredResource(
            resource: resource,
            source: RecordSource(identifier: try row.opened(1, sealer), name: try row.opened(2, sealer)),
            clinicalType: try row.optionalString(4).flatMap(ClinicalType.init(rawValue:)),
            category: CategoryCoding.decode(try row.optionalString(13)),
            displayName: try row.opened(6, sealer),
            addedDate: Date(timeIntervalSince1970: try row.double(10)),
            clinicalDate: try row.optionalString(9).flatMap(FHIRDate.init),
            anchor: QueryAnchor(rawValue: try row.int(11)))
    }

    static func deleted(_ row: PGRow, sealer: any RecordSealer) throws -> DeletedRecord {
        let typeName = try row.string(4)
        guard let type = ClinicalType(rawValue: typeName) else { throw HealthStoreError.corruptRecord("tombstone with type \(typeName)") }
        return DeletedRecord(
            identity: RecordIdentity(source: try row.opened(1, sealer), resourceType: FHIRResourceType(try row.string(3)), identifier: try row.opened(5, sealer)),
            clinicalType: type,
            deletedDate: Date(timeIntervalSince1970: try row.double(6)),
            anchor: QueryAnchor(rawValue: try row.int(0)))
    }
}
