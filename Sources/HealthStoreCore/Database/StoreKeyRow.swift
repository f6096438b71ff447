import Foundation

/// The store's `store_key` row: the wrapped data key of an encrypted store.
enum StoreKeyRow {
    static func load(_ session: any SQLSession, _ dialect: SQLDialect) async throws -> KeyEnvelope? {
        var q = SQLStatement(dialect, "SELECT key_id, method, kdf_log_n, kdf_r, kdf_p, salt, wrapped_key, key_check, changed_date FROM store_key WHERE ")
        q += q.singleton
        guard let row = try await session.row(q) else { return nil }
        let methodName = try row.string(1)
        let method: KeyEnvelope.Method
        switch methodName {
        case "passphrase":
            guard let logN = try row.optionalInt(2), let r = try row.optionalInt(3), let p = try row.optionalInt(4) else {
                throw HealthStoreError.corruptRecord("store key without KDF parameters")
            }
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

    static func save(_ e: KeyEnvelope, _ w: StoreWriter) async throws {
        var kdf: KDFParameters?
        if case .passphrase(let k) = e.method { kdf = k }
        var q = w.sql("INSERT INTO store_key (")
        q += q.singletonColumn + ", key_id, method, kdf_log_n, kdf_r, kdf_p, salt, wrapped_key, key_check, changed_date) VALUES (" + q.singletonValue + ", "
        let values = [
            q.bind(e.keyID), q.bind(e.method.name), q.bind(kdf?.logN), q.bind(kdf?.r), q.bind(kdf?.p), q.bind(e.salt), q.bind(e.wrappedKey),
            q.bind(e.keyCheck), q.bind(e.changedDate.timeIntervalSince1970),
        ]
        q += values.joined(separator: ", ") + ") ON CONFLICT (" + q.singletonColumn + """
            ) DO UPDATE SET key_id = EXCLUDED.key_id, method = EXCLUDED.method, kdf_log_n = EXCLUDED.kdf_log_n,
            kdf_r = EXCLUDED.kdf_r, kdf_p = EXCLUDED.kdf_p, salt = EXCLUDED.salt, wrapped_key = EXCLUDED.wrapped_key,
            key_check = EXCLUDED.key_check, changed_date = EXCLUDED.changed_date
            """
        try await w.session.run(q)
    }

    /// Whether the store holds nothing yet (so it can be encrypted from its first row).
    static func isEmpty(_ w: StoreWriter) async throws -> Bool {
        for table in ["source", "resource", "tombstone", "quantity_sample", "quantity_sample_tombstone", "verifiable_record", "app", "audit_entry"] {
            var q = w.sql("SELECT EXISTS (SELECT 1 FROM \(table) WHERE ")
            q += q.scope() + ")"
            if try await w.session.row(q)?.bool(0) ?? false { return false }
        }
        return true
    }
}
