import ClinicalRecords
import Foundation
import GRDB

extension SQLiteRecordWriter {
    /// Saves one sample; `nil` when it is stored already with the same values.
    ///
    /// - Throws: ``HealthStoreError/sampleConflict(_:)`` when its UUID is stored with other values.
    mutating func insert(_ sample: QuantitySample, sourceID: Int64, now: Double) throws -> StoredQuantitySample? {
        let identity = SQLiteSampleCoding.identity(sample.uuid, sealer)
        let digest = SQLiteSampleCoding.digest(sample, sealer)
        if let existing = try Data.fetchOne(
            db.cachedStatement(sql: "SELECT digest FROM quantity_sample WHERE identity = ?"), arguments: [identity])
        {
            if existing == digest { return nil }
            throw HealthStoreError.sampleConflict(sample.uuid)
        }
        let status = SampleSignatureStatus.check(sample)
        let anchor = nextAnchor()
        let sealed = try SampleCoding.sealed(sample, status: status, sealer)
        try db.cachedStatement(
            sql: """
                INSERT INTO quantity_sample (identity, source_id, quantity_type, sample_uuid, start_date, end_date, added_date,
                anchor, digest, value, unit, device, metadata, signature_status)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            identity, sourceID, sample.type.rawValue, sealed.uuid, SampleCoding.seconds(sample.startDate), SampleCoding.seconds(sample.endDate),
            now, anchor, digest, sealed.value, sealed.unit, sealed.device, sealed.metadata, sealed.signatureStatus,
        ])
        // A sample saved again after its deletion is simply added again.
        try db.cachedStatement(sql: "DELETE FROM quantity_sample_tombstone WHERE identity = ?").execute(arguments: [identity])
        return StoredQuantitySample(
            sample: sample, addedDate: Date(timeIntervalSince1970: now), anchor: QueryAnchor(rawValue: anchor),
            signatureStatus: status)
    }

    /// Deletes the samples a query selects, leaving tombstones; returns how many and their types.
    mutating func deleteSamples(_ select: SQLiteSampleQueryBuilder.SQL, now: Double) throws -> (Int, Set<QuantityType>) {
        let rows = try Row.fetchAll(db, sql: select.text, arguments: select.arguments)
        var types = Set<QuantityType>()
        for row in rows {
            let typeName: String = row[3]
            if let type = QuantityType(rawValue: typeName) { types.insert(type) }
            try db.execute(
                sql: """
                    INSERT INTO quantity_sample_tombstone (anchor, identity, source_id, quantity_type, sample_uuid, deleted_date, added_anchor)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [nextAnchor(), row[1] as Data, row[2] as Int64, typeName, row[4] as Data, now, row[5] as Int64])
            try db.execute(sql: "DELETE FROM quantity_sample WHERE id = ?", arguments: [row[0] as Int64])
        }
        return (rows.count, types)
    }
}
