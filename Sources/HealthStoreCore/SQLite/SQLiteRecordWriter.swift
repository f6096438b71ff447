import ClinicalRecords
import FHIR
import Foundation
import GRDB

/// Writes records inside one transaction, numbering every change with the next anchor.
struct SQLiteRecordWriter {
    enum Change {
        case inserted
        case updated(previousType: ClinicalType?)
        case unchanged
    }

    let db: Database
    let sealer: any RecordSealer
    private(set) var anchor: Int64
    private let startAnchor: Int64

    init(db: Database, sealer: any RecordSealer) throws {
        self.db = db
        self.sealer = sealer
        anchor = try Int64.fetchOne(db, sql: "SELECT value FROM anchor_counter") ?? 0
        startAnchor = anchor
    }

    mutating func nextAnchor() -> Int64 {
        anchor += 1
        return anchor
    }

    func finish() throws {
        if anchor != startAnchor {
            try db.execute(sql: "UPDATE anchor_counter SET value = ? WHERE id = 1", arguments: [anchor])
        }
    }

    func sourceID(for source: RecordSource) throws -> Int64 {
        let identity = SQLiteSchema.sourceIdentity(source.identifier, sealer)
        if let row = try Row.fetchOne(db, sql: "SELECT id, name FROM source WHERE identity = ?", arguments: [identity]) {
            let id: Int64 = row[0]
            if String(decoding: try sealer.open(row[1]), as: UTF8.self) != source.name {
                try db.execute(sql: "UPDATE source SET name = ? WHERE id = ?", arguments: [try sealer.seal(Data(source.name.utf8)), id])
            }
            return id
        }
        try db.execute(
            sql: "INSERT INTO source (identity, identifier, name) VALUES (?, ?, ?)",
            arguments: [identity, try sealer.seal(Data(source.identifier.utf8)), try sealer.seal(Data(source.name.utf8))])
        return db.lastInsertedRowID
    }

    mutating func upsert(_ item: ClassifiedResource, sourceID: Int64, sourceIdentifier: String, now: Double) throws -> Change {
        let r = item.resource
        let identity = sealer.identityKey([sourceIdentifier, r.resourceType.rawValue, r.identifier])
        let digest = sealer.contentDigest(r.data)
        let existing = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, digest, anchor, data, clinical_type FROM resource WHERE identity = ?"), arguments: [identity])
        if let existing {
            let rowID: Int64 = existing[0]
            let oldDigest: Data = existing[1]
            if oldDigest == digest { return .unchanged }
            let previousType = (existing[4] as String?).flatMap(ClinicalType.init(rawValue:))
            try db.cachedStatement(sql: "INSERT INTO resource_version (resource_row, anchor, replaced_date, digest, data) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [rowID, existing[2] as Int64, now, oldDigest, existing[3] as Data])
            let a = nextAnchor()
            try db.cachedStatement(
                sql: """
                    UPDATE resource SET clinical_type = ?, category = ?, display_name = ?, fhir_version = ?, source_url = ?, clinical_date = ?,
                    clinical_date_text = ?, anchor = ?, digest = ?, data = ? WHERE id = ?
                    """
            ).execute(arguments: [
                item.clinicalType?.rawValue, item.category.rawValue, try sealer.seal(Data(item.displayName.utf8)), r.fhirVersion.stringRepresentation,
                try r.sourceURL.map { try sealer.seal(Data($0.absoluteString.utf8)) }, item.clinicalDate?.date.timeIntervalSince1970,
                item.clinicalDate?.text, a, digest, try sealer.seal(r.data), rowID,
            ])
            return .updated(previousType: previousType)
        }
        let a = nextAnchor()
        try db.cachedStatement(
            sql: """
                INSERT INTO resource (identity, source_id, resource_type, clinical_type, resource_id, display_name, fhir_version,
                source_url, clinical_date, clinical_date_text, added_date, anchor, digest, data, added_anchor, category)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            identity, sourceID, r.resourceType.rawValue, item.clinicalType?.rawValue, try sealer.seal(Data(r.identifier.utf8)),
            try sealer.seal(Data(item.displayName.utf8)), r.fhirVersion.stringRepresentation,
            try r.sourceURL.map { try sealer.seal(Data($0.absoluteString.utf8)) }, item.clinicalDate?.date.timeIntervalSince1970,
            item.clinicalDate?.text, now, a, digest, try sealer.seal(r.data), a, item.category.rawValue,
        ])
        // A record that comes back after a deletion is simply added again.
        try db.cachedStatement(sql: "DELETE FROM tombstone WHERE identity = ?").execute(arguments: [identity])
        return .inserted
    }

    mutating func delete(source: String, resourceType: FHIRResourceType?, identifier: String?, now: Double) throws -> (Int, Set<ClinicalType>) {
        guard let sourceID = try Int64.fetchOne(db, sql: "SELECT id FROM source WHERE identity = ?", arguments: [SQLiteSchema.sourceIdentity(source, sealer)]) else {
            return (0, [])
        }
        var sql = "SELECT id, identity, resource_type, clinical_type, resource_id, added_anchor FROM resource WHERE source_id = ?"
        var args: StatementArguments = [sourceID]
        if let resourceType, let identifier {
            sql += " AND identity = ?"
            args += [sealer.identityKey([source, resourceType.rawValue, identifier])]
        } else if let resourceType {
            sql += " AND resource_type = ?"
            args += [resourceType.rawValue]
        }
        let rows = try Row.fetchAll(db, sql: sql + " ORDER BY id", arguments: args)
        var types = Set<ClinicalType>()
        for row in rows {
            if let type = (row[3] as String?).flatMap(ClinicalType.init(rawValue:)) {
                types.insert(type)
                try db.execute(
                    sql: """
                        INSERT INTO tombstone (anchor, identity, source_id, resource_type, clinical_type, resource_id, deleted_date, added_anchor)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """, arguments: [nextAnchor(), row[1] as Data, sourceID, row[2] as String, type.rawValue, row[4] as Data, now, row[5] as Int64])
            }
            try db.execute(sql: "DELETE FROM resource_version WHERE resource_row = ?", arguments: [row[0] as Int64])
            try db.execute(sql: "DELETE FROM resource WHERE id = ?", arguments: [row[0] as Int64])
        }
        return (rows.count, types)
    }
}
