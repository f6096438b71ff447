import Foundation
import GRDB

/// Seals every sensitive column of a store anew under another sealer, recomputing identity
/// keys and digests, inside the caller's transaction. Sources are done last: the other tables'
/// identity keys are computed from their plain source identifiers.
struct SQLiteResealer {
    let old: any RecordSealer
    let new: any RecordSealer

    func resealAll(_ db: Database) throws {
        var sources: [Int64: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, identifier FROM source") {
            sources[row[0]] = try text(row[1])
        }
        try resources(db, sources)
        try tombstones(db, sources)
        try samples(db)
        try verifiableRecords(db)
        for row in try Row.fetchAll(db, sql: "SELECT id, details FROM app") {
            try db.execute(sql: "UPDATE app SET details = ? WHERE id = ?", arguments: [try reseal(row[1]), row[0] as String])
        }
        try db.execute(sql: "DELETE FROM card_share")
        for row in try Row.fetchAll(db, sql: "SELECT id, identifier, name FROM source") {
            let identifier = try text(row[1])
            try db.execute(
                sql: "UPDATE source SET identity = ?, identifier = ?, name = ? WHERE id = ?",
                arguments: [SQLiteSchema.sourceIdentity(identifier, new), try reseal(row[1]), try reseal(row[2]), row[0] as Int64])
        }
    }

    private func resources(_ db: Database, _ sources: [Int64: String]) throws {
        for row in try Row.fetchAll(db, sql: "SELECT id, source_id, resource_type, resource_id, display_name, source_url, data FROM resource") {
            let data = try old.open(row[6])
            let identity = new.identityKey([sources[row[1]] ?? "", row[2], try text(row[3])])
            try db.execute(
                sql: "UPDATE resource SET identity = ?, resource_id = ?, display_name = ?, source_url = ?, digest = ?, data = ? WHERE id = ?",
                arguments: [
                    identity, try reseal(row[3]), try reseal(row[4]), try (row[5] as Data?).map(reseal), new.contentDigest(data), try new.seal(data),
                    row[0] as Int64,
                ])
        }
        for row in try Row.fetchAll(db, sql: "SELECT id, data FROM resource_version") {
            let data = try old.open(row[1])
            try db.execute(
                sql: "UPDATE resource_version SET digest = ?, data = ? WHERE id = ?", arguments: [new.contentDigest(data), try new.seal(data), row[0] as Int64])
        }
    }

    private func tombstones(_ db: Database, _ sources: [Int64: String]) throws {
        for row in try Row.fetchAll(db, sql: "SELECT anchor, source_id, resource_type, resource_id FROM tombstone") {
            let identity = new.identityKey([sources[row[1]] ?? "", row[2], try text(row[3])])
            try db.execute(
                sql: "UPDATE tombstone SET identity = ?, resource_id = ? WHERE anchor = ?", arguments: [identity, try reseal(row[3]), row[0] as Int64])
        }
        for row in try Row.fetchAll(db, sql: "SELECT anchor, sample_uuid FROM quantity_sample_tombstone") {
            guard let uuid = UUID(uuidString: try text(row[1])) else { throw HealthStoreError.corruptRecord("sample tombstone with a damaged UUID") }
            try db.execute(
                sql: "UPDATE quantity_sample_tombstone SET identity = ?, sample_uuid = ? WHERE anchor = ?",
                arguments: [SQLiteSampleCoding.identity(uuid, new), try reseal(row[1]), row[0] as Int64])
        }
    }

    private func samples(_ db: Database) throws {
        for row in try Row.fetchAll(db, sql: SQLiteSampleCoding.selectColumns) {
            let stored = try SQLiteSampleCoding.stored(row, sealer: old)
            let sealed = try Row.fetchOne(
                db, sql: "SELECT sample_uuid, value, unit, device, metadata, signature_status FROM quantity_sample WHERE id = ?", arguments: [row[0] as Int64])!
            try db.execute(
                sql: """
                    UPDATE quantity_sample SET identity = ?, digest = ?, sample_uuid = ?, value = ?, unit = ?, device = ?, metadata = ?,
                    signature_status = ? WHERE id = ?
                    """,
                arguments: [
                    SQLiteSampleCoding.identity(stored.sample.uuid, new), SQLiteSampleCoding.digest(stored.sample, new), try reseal(sealed[0]),
                    try reseal(sealed[1]), try reseal(sealed[2]), try (sealed[3] as Data?).map(reseal), try reseal(sealed[4]), try reseal(sealed[5]),
                    row[0] as Int64,
                ])
        }
    }

    private func verifiableRecords(_ db: Database) throws {
        for row in try Row.fetchAll(db, sql: "SELECT id, status_detail, details, jws FROM verifiable_record") {
            let jws = try text(row[3])
            try db.execute(
                sql: "UPDATE verifiable_record SET identity = ?, status_detail = ?, details = ?, jws = ? WHERE id = ?",
                arguments: [
                    new.identityKey(["smart-health-card", jws]), try reseal(row[1]), try reseal(row[2]), try reseal(row[3]), row[0] as Int64,
                ])
        }
    }

    private func reseal(_ sealed: Data) throws -> Data { try new.seal(try old.open(sealed)) }

    private func text(_ sealed: Data) throws -> String { String(decoding: try old.open(sealed), as: UTF8.self) }
}
