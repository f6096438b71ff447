import Foundation
import HealthStoreCore

/// A person's `store_key` row: the wrapped data key of an encrypted store.
enum PostgresKeyStorage {
    static func load(person: String, _ session: PGSession) async throws -> KeyEnvelope? {
        var q = PGQuery("SELECT key_id, method, kdf_log_n, kdf_r, kdf_p, salt, wrapped_key, key_check, changed_date FROM store_key WHERE person_id = ")
        q += q.bind(person)
        guard let row = try await session.row(q) else { return nil }
        let methodName = try row.string(1)
        let method: KeyEnvelope.Method
        switch methodName {
        case "passphrase":
            let k: (Int32?, Int32?, Int32?) = (try row.decode(2), try row.decode(3), try row.decode(4))
            guard let logN = k.0, let r = k.1, let p = k.2 else { throw HealthStoreError.corruptRecord("store key without KDF parameters") }
            method = .passphrase(KDFParameters(logN: Int(logN), r: Int(r), p: Int(p)))
        case "key-file":
            method = .keyFile
        default:
            throw HealthStoreError.corruptRecord("store key with unknown method \(methodName)")
        }
        return KeyEnvelope(
            keyID: try row.string(0), method: method, salt: try row.data(5), wrappedKey: try row.data(6), keyCheck: try row.data(7),
            changedDate: Date(timeIntervalSince1970: try row.double(8)))
    }

    static func save(_ e: KeyEnvelope, person: String, _ session: PGSession) async throws {
        var kdf: KDFParameters?
        if case .passphrase(let k) = e.method { kdf = k }
        var q = PGQuery("""
            INSERT INTO store_key (person_id, key_id, method, kdf_log_n, kdf_r, kdf_p, salt, wrapped_key, key_check, changed_date) VALUES (
            """)
        let values = [
            q.bind(person), q.bind(e.keyID), q.bind(e.method.name), q.bind(kdf.map { Int32($0.logN) }), q.bind(kdf.map { Int32($0.r) }),
            q.bind(kdf.map { Int32($0.p) }), q.bind(e.salt), q.bind(e.wrappedKey), q.bind(e.keyCheck), q.bind(e.changedDate.timeIntervalSince1970),
        ]
        q += values.joined(separator: ", ") + """
            ) ON CONFLICT (person_id) DO UPDATE SET key_id = EXCLUDED.key_id, method = EXCLUDED.method, kdf_log_n = EXCLUDED.kdf_log_n,
            kdf_r = EXCLUDED.kdf_r, kdf_p = EXCLUDED.kdf_p, salt = EXCLUDED.salt, wrapped_key = EXCLUDED.wrapped_key,
            key_check = EXCLUDED.key_check, changed_date = EXCLUDED.changed_date
            """
        try await session.run(q)
    }

    /// Whether the person's store holds nothing yet (so it can be encrypted from its first row).
    static func isEmpty(_ session: PGSession, person: String) async throws -> Bool {
        for table in ["source", "resource", "tombstone", "quantity_sample", "quantity_sample_tombstone", "verifiable_record", "app", "audit_entry"] {
            var q = PGQuery("SELECT EXISTS (SELECT 1 FROM \(table) WHERE person_id = ")
            q += q.bind(person) + ")"
            if try await session.row(q)?.bool(0) ?? false { return false }
        }
        return true
    }
}
