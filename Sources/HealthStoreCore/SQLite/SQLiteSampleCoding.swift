import ClinicalRecords
import FHIR
import Foundation
import GRDB

/// How sample rows are read on SQLite; the engine-independent coding is ``SampleCoding``.
enum SQLiteSampleCoding {
    static let selectColumns = """
        SELECT q.id, s.identifier, s.name, q.quantity_type, q.sample_uuid, q.value, q.unit, q.start_date, q.end_date,
        q.device, q.metadata, q.signature_status, q.added_date, q.anchor FROM quantity_sample q JOIN source s ON s.id = q.source_id
        """

    /// The identity key standing in for the sample's UUID in indexes.
    static func identity(_ uuid: UUID, _ sealer: any RecordSealer) -> Data { SampleCoding.identity(uuid, sealer) }

    /// A digest of everything the sample holds, to tell a repeated save from a conflicting one.
    static func digest(_ sample: QuantitySample, _ sealer: any RecordSealer) -> Data { SampleCoding.digest(sample, sealer) }

    static func seconds(_ date: Date) -> Double { SampleCoding.seconds(date) }

    /// Reads a row selected with ``selectColumns``.
    static func stored(_ row: Row, sealer: any RecordSealer) throws -> StoredQuantitySample {
        let type: String = row[3]
        let uuid: Data = row[4]
        let value: Data = row[5]
        let unit: Data = row[6]
        let device: Data? = row[9]
        let metadata: Data = row[10]
        let status: Data = row[11]
        let start: Double = row[7]
        let end: Double = row[8]
        let added: Double = row[12]
        let anchor: Int64 = row[13]
        let sealed = SampleCoding.SealedColumns(uuid: uuid, value: value, unit: unit, device: device, metadata: metadata, signatureStatus: status)
        let source = RecordSource(identifier: try SampleCoding.text(row[1], sealer), name: try SampleCoding.text(row[2], sealer))
        return try SampleCoding.stored(type: type, sealed: sealed, start: start, end: end, added: added, anchor: anchor, source: source, sealer: sealer)
    }

    /// Reads a tombstone row: anchor, source identifier, type, sealed UUID, deleted date.
    static func deleted(_ row: Row, sealer: any RecordSealer) throws -> DeletedSample {
        let anchor: Int64 = row[0]
        let type: String = row[2]
        let uuid: Data = row[3]
        let deleted: Double = row[4]
        return try SampleCoding.deleted(
            anchor: anchor, source: try SampleCoding.text(row[1], sealer), type: type, sealedUUID: uuid, deletedDate: deleted, sealer: sealer)
    }
}
