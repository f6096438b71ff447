import ClinicalRecords
import FHIR
import Foundation

/// Reads rows selected by ``RecordSQL`` and ``SampleSQL`` back into values, opening sealed columns.
enum RowCoding {
    static func stored(_ row: SQLRow, _ sealer: any RecordSealer) throws -> StoredResource {
        let type = FHIRResourceType(try row.string(3))
        let id = try row.opened(5, sealer)
        let versionText = try row.string(7)
        guard let version = try? FHIRVersion(versionString: versionText) else {
            throw HealthStoreError.corruptRecord("\(type.rawValue)/\(id): bad FHIR version \(versionText)")
        }
        let url = try row.openedData(8, sealer).map { String(decoding: $0, as: UTF8.self) }.flatMap(URL.init(string:))
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

    /// A row selected with its identity (``RecordSQL/selectResources(into:keyed:)``).
    static func keyed(_ row: SQLRow, _ sealer: any RecordSealer) throws -> KeyedResource {
        KeyedResource(stored: try stored(row, sealer), key: ResourceKey(bytes: try row.data(14)))
    }

    static func deleted(_ row: SQLRow, _ sealer: any RecordSealer) throws -> DeletedRecord {
        let typeName = try row.string(4)
        guard let type = ClinicalType(rawValue: typeName) else { throw HealthStoreError.corruptRecord("tombstone with type \(typeName)") }
        return DeletedRecord(
            identity: RecordIdentity(source: try row.opened(1, sealer), resourceType: FHIRResourceType(try row.string(3)), identifier: try row.opened(5, sealer)),
            clinicalType: type,
            deletedDate: Date(timeIntervalSince1970: try row.double(6)),
            anchor: QueryAnchor(rawValue: try row.int(0)))
    }

    static func sample(_ row: SQLRow, _ sealer: any RecordSealer) throws -> StoredQuantitySample {
        try SampleCoding.stored(
            type: try row.string(3),
            sealed: SampleCoding.SealedColumns(
                uuid: try row.data(4), value: try row.data(5), unit: try row.data(6), device: try row.optionalData(9), metadata: try row.data(10),
                signatureStatus: try row.data(11)),
            start: try row.double(7), end: try row.double(8), added: try row.double(12), anchor: try row.int(13),
            source: RecordSource(identifier: try row.opened(1, sealer), name: try row.opened(2, sealer)), sealer: sealer)
    }

    static func deletedSample(_ row: SQLRow, _ sealer: any RecordSealer) throws -> DeletedSample {
        try SampleCoding.deleted(
            anchor: try row.int(0), source: try row.opened(1, sealer), type: try row.string(2), sealedUUID: try row.data(3),
            deletedDate: try row.double(4), sealer: sealer)
    }
}
