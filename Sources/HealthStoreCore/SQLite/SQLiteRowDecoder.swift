import ClinicalRecords
import FHIR
import Foundation
import GRDB

/// Reads store rows back into values, opening sealed columns.
enum SQLiteRowDecoder {
    static let selectColumns = """
        SELECT r.id, s.identifier, s.name, r.resource_type, r.clinical_type, r.resource_id, r.display_name, r.fhir_version,
        r.source_url, r.clinical_date_text, r.added_date, r.anchor, r.data, r.category FROM resource r JOIN source s ON s.id = r.source_id
        """

    static func stored(_ row: Row, sealer: any RecordSealer) throws -> StoredResource {
        let type = FHIRResourceType(row[3] as String)
        let id = try text(row[5], sealer)
        let versionText: String = row[7]
        guard let version = try? FHIRVersion(versionString: versionText) else {
            throw HealthStoreError.corruptRecord("\(type.rawValue)/\(id): bad FHIR version \(versionText)")
        }
        let url = try (row[8] as Data?).map { try text($0, sealer) }.flatMap(URL.init(string:))
        let resource = FHIRResource(storedData: try sealer.open(row[12]), resourceType: type, identifier: id, fhirVersion: version, sourceURL: url)
        return StoredResource(
            resource: resource,
            source: RecordSource(identifier: try text(row[1], sealer), name: try text(row[2], sealer)),
            clinicalType: (row[4] as String?).flatMap(ClinicalType.init(rawValue:)),
            category: CategoryCoding.decode(row[13]),
            displayName: try text(row[6], sealer),
            addedDate: Date(timeIntervalSince1970: row[10]),
            clinicalDate: (row[9] as String?).flatMap(FHIRDate.init),
            anchor: QueryAnchor(rawValue: row[11]))
    }

    static func deleted(_ row: Row, sealer: any RecordSealer) throws -> DeletedRecord {
        let typeName: String = row[4]
        guard let type = ClinicalType(rawValue: typeName) else { throw HealthStoreError.corruptRecord("tombstone with type \(typeName)") }
        return DeletedRecord(
            identity: RecordIdentity(source: try text(row[1], sealer), resourceType: FHIRResourceType(row[3] as String), identifier: try text(row[5], sealer)),
            clinicalType: type,
            deletedDate: Date(timeIntervalSince1970: row[6]),
            anchor: QueryAnchor(rawValue: row[0]))
    }

    static func text(_ sealed: Data, _ sealer: any RecordSealer) throws -> String {
        String(decoding: try sealer.open(sealed), as: UTF8.self)
    }
}
