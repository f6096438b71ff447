import Foundation
import GRDB

/// The `store_key` row: the wrapped data key of an encrypted store.
enum SQLiteKeyStorage {
    static func load(_ db: Database) throws -> KeyEnvelope? {
        guard let row = try Row.fetchOne(
            db, sql: "SELECT key_id, method, kdf_log_n, kdf_r, kdf_p, salt, wrapped_key, key_check, changed_date FROM store_key WHERE id = 1")
        else { return nil }
        let methodName: String = row[1]
        let method: KeyEnvelope.Method
        switch methodName {
        case "passphrase":
            guard let logN = row[2] as Int?, let r = row[3] as Int?, let p = row[4] as Int? else {
                throw HealthStoreError.corruptRecord("store key without KDF parameters")
            }
            method = .passphrase(KDFParameters(logN: logN, r: r, p: p))
        case "key-file":
            method = .keyFile
        default:
            throw HealthStoreError.corruptRecord("store key with unknown method \(methodName)")
        }
        return KeyEnvelope(keyID: row[0], method: method, salt: row[5], wrappedKey: row[6], keyCheck: row[7], changedDate: Date(timeIntervalSince1970: row[8]))
    }

    static func save(_ e: KeyEnvelope, _ db: Database) throws {
        var kdf: KDFParameters?
        if case .passphrase(let k) = e.method { kdf = k }
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO store_key (id, key_id, method, kdf_log_n, kdf_r, kdf_p, salt, wrapped_key, key_check, changed_date)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [e.keyID, e.method.name, kdf?.logN, kdf?.r, kdf?.p, e.salt, e.wrappedKey, e.keyCheck, e.changedDate.timeIntervalSince1970])
    }

    /// Whether the store holds nothing yet (so it can be encrypted from its first row).
    static func isEmpty(_ db: Database) throws -> Bool {
        for table in ["source", "resource", "tombstone", "quantity_sample", "quantity_sample_tombstone", "verifiable_record", "app", "audit_entry"] {
            if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table))") ?? false { return false }
        }
        return true
    }
}
