import Foundation

extension DatabaseHealthStore {
    public func insertPasskey(_ passkey: StoredPasskey) async throws -> Bool {
        var q = sql("INSERT INTO passkey (")
        q += q.personColumn + "credential_id, public_key, sign_count, name, created, last_used, backup_eligible) VALUES (" + q.personValue
        q += [
            q.bind(passkey.credentialID), q.bind(passkey.publicKey), q.bind(Int64(passkey.signCount)), q.bind(try sealer.seal(Data(passkey.name.utf8))),
            q.bind(passkey.created.timeIntervalSince1970), q.bind(.double(passkey.lastUsed?.timeIntervalSince1970)), q.bind(passkey.backupEligible ? 1 : 0),
        ].joined(separator: ", ")
        q += ") ON CONFLICT (" + q.personColumn + "credential_id) DO NOTHING RETURNING credential_id"
        let final = q
        return try await write { w in try await w.session.rows(final).count == 1 }
    }

    public func passkeys() async throws -> [StoredPasskey] {
        var q = sql("SELECT credential_id, public_key, sign_count, name, created, last_used, backup_eligible FROM passkey WHERE ")
        q += q.scope() + " ORDER BY created, credential_id"
        let final = q
        let sealer = self.sealer
        return try await read { session in try await session.rows(final).map { try Self.passkey($0, sealer) } }
    }

    public func passkey(credentialID: Data) async throws -> StoredPasskey? {
        var q = sql("SELECT credential_id, public_key, sign_count, name, created, last_used, backup_eligible FROM passkey WHERE ")
        q += q.scope() + " AND credential_id = " + q.bind(credentialID)
        let final = q
        let sealer = self.sealer
        return try await read { session in try await session.row(final).map { try Self.passkey($0, sealer) } }
    }

    public func recordPasskeyUse(credentialID: Data, signCount: UInt32, at date: Date) async throws -> Bool {
        var q = sql("UPDATE passkey SET sign_count = ")
        let count = q.bind(Int64(signCount))
        q += count + ", last_used = " + q.bind(date.timeIntervalSince1970) + " WHERE " + q.scope() + " AND credential_id = " + q.bind(credentialID)
        q += " AND (sign_count < " + count + " OR (sign_count = 0 AND " + count + " = 0)) RETURNING credential_id"
        let final = q
        return try await write { w in try await w.session.rows(final).count == 1 }
    }

    public func renamePasskey(credentialID: Data, to name: String) async throws -> Bool {
        var q = sql("UPDATE passkey SET name = ")
        q += q.bind(try sealer.seal(Data(StoredPasskey.cleanName(name).utf8))) + " WHERE " + q.scope() + " AND credential_id = " + q.bind(credentialID)
        q += " RETURNING credential_id"
        let final = q
        return try await write { w in try await w.session.rows(final).count == 1 }
    }

    public func deletePasskey(credentialID: Data) async throws -> Bool {
        var q = sql("DELETE FROM passkey WHERE ")
        q += q.scope() + " AND credential_id = " + q.bind(credentialID) + " RETURNING credential_id"
        let final = q
        return try await write { w in try await w.session.rows(final).count == 1 }
    }

    public func replaceRecoveryCodes(digests: [Data]) async throws {
        var clear = sql("DELETE FROM recovery_code WHERE ")
        clear += clear.scope()
        let removal = clear
        try await write { w in
            try await w.session.run(removal)
            try await w.insert("INSERT INTO recovery_code (digest) VALUES ", digests.map { [.blob($0)] })
        }
    }

    public func useRecoveryCode(digest: Data) async throws -> Bool {
        var q = sql("DELETE FROM recovery_code WHERE ")
        q += q.scope() + " AND digest = " + q.bind(digest) + " RETURNING digest"
        let final = q
        return try await write { w in try await w.session.rows(final).count == 1 }
    }

    public func recoveryCodesLeft() async throws -> Int {
        var q = sql("SELECT COUNT(*) FROM recovery_code WHERE ")
        q += q.scope()
        let final = q
        return Int(try await read { session in try await session.row(final)?.int(0) ?? 0 })
    }

    private static func passkey(_ row: SQLRow, _ sealer: any RecordSealer) throws -> StoredPasskey {
        let count = try row.int(2)
        guard (0...Int64(UInt32.max)).contains(count) else { throw HealthStoreError.corruptRecord("a passkey's counter") }
        return StoredPasskey(
            credentialID: try row.data(0), publicKey: try row.data(1), signCount: UInt32(count),
            name: String(decoding: try sealer.open(try row.data(3)), as: UTF8.self), created: Date(timeIntervalSince1970: try row.double(4)),
            lastUsed: try row.optionalDouble(5).map(Date.init(timeIntervalSince1970:)), backupEligible: try row.int(6) != 0)
    }
}
