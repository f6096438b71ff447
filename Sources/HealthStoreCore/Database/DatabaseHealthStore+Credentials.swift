import Foundation

/// Credential storage: digests, owners, families and expiry in the clear (they are not health
/// data and the secrets themselves are never stored). Writes take their own short transactions,
/// not the store's import lock: signing in must not wait for an import.
extension DatabaseHealthStore {
    private static let columns = "kind, digest, app_id, family, expires, spent, details"

    public func insertCredential(_ c: StoredCredential) async throws -> Bool {
        var q = sql("INSERT INTO oauth_credential (")
        q += q.personColumn + Self.columns + ") VALUES (" + q.personValue + q.bind(c.kind.rawValue) + ", " + q.bind(c.digest) + ", "
        q += q.bind(c.appID) + ", " + q.bind(c.family) + ", " + q.bind(c.expires.timeIntervalSince1970) + ", " + q.bind(Int64(c.spent ? 1 : 0))
        q += ", " + q.bind(c.details) + ") ON CONFLICT (" + q.personColumn + "kind, digest) DO NOTHING RETURNING kind"
        return try await credentialTransaction { session in try await session.row(q) != nil }
    }

    public func credential(_ kind: StoredCredential.Kind, digest: Data) async throws -> StoredCredential? {
        let q = select(kind, digest)
        return try await read { session in try await session.row(q).map(Self.credential) }
    }

    public func credentialWithApp(_ kind: StoredCredential.Kind, digest: Data) async throws -> CredentialWithApp? {
        // One row per grant (one with NULL grant columns when there is none).
        var q = sql("SELECT c.kind, c.digest, c.app_id, c.family, c.expires, c.spent, c.details, ")
        q += "a.id, a.secret_digest, a.registered_date, a.details, a.access_revision, " + Self.joinedGrantColumns
        q += " FROM oauth_credential c LEFT JOIN app a ON " + q.sameScope("a", "c") + "a.id = c.app_id"
        q += " LEFT JOIN read_grant g ON " + q.sameScope("g", "c") + "g.app_id = a.id"
        q += " WHERE " + q.scope("c") + " AND c.kind = " + q.bind(kind.rawValue) + " AND c.digest = " + q.bind(digest)
        let final = q
        let sealer = self.sealer
        let remembered = self.remembered
        return try await read { session in
            let rows = try await session.rows(final)
            guard let row = rows.first else { return nil }
            let credential = try Self.credential(row)
            let appRow = row.dropping(7)
            guard try !appRow.isNull(0) else { return CredentialWithApp(credential: credential, app: nil) }
            let app = try Self.app(appRow, sealer, remembered)
            let grants = try rows.compactMap { row -> ReadGrant? in
                let grantRow = row.dropping(12)
                return try grantRow.isNull(0) ? nil : try Self.grant(grantRow, appID: app.registration.id)
            }
            return CredentialWithApp(credential: credential, app: app, grants: grants)
        }
    }

    public func useCredential(_ kind: StoredCredential.Kind, digest: Data) async throws -> CredentialUse {
        var spend = sql("UPDATE oauth_credential SET spent = 1 WHERE ")
        spend += spend.scope() + " AND kind = " + spend.bind(kind.rawValue) + " AND digest = " + spend.bind(digest) + " AND spent = 0 RETURNING "
        spend += Self.columns
        let find = select(kind, digest)
        let final = spend
        return try await credentialTransaction { session in
            if let row = try await session.row(final) { return .used(try Self.credential(row)) }
            if let row = try await session.row(find) { return .replayed(try Self.credential(row)) }
            return .missing
        }
    }

    public func deleteCredential(_ kind: StoredCredential.Kind, digest: Data) async throws -> Bool {
        var q = sql("DELETE FROM oauth_credential WHERE ")
        q += q.scope() + " AND kind = " + q.bind(kind.rawValue) + " AND digest = " + q.bind(digest) + " RETURNING kind"
        let final = q
        return try await credentialTransaction { session in try await session.row(final) != nil }
    }

    public func deleteCredentials(family: Data) async throws -> Int {
        var q = sql("DELETE FROM oauth_credential WHERE ")
        q += q.scope() + " AND family = " + q.bind(family) + " RETURNING kind"
        let final = q
        return try await credentialTransaction { session in try await session.rows(final).count }
    }

    public func deleteCredentials(appID: String) async throws -> Int {
        var q = sql("DELETE FROM oauth_credential WHERE ")
        q += q.scope() + " AND app_id = " + q.bind(appID) + " RETURNING kind"
        let final = q
        return try await credentialTransaction { session in try await session.rows(final).count }
    }

    public func deleteCredentials(expiredBefore date: Date) async throws -> Int {
        var q = sql("DELETE FROM oauth_credential WHERE ")
        q += q.scope() + " AND expires < " + q.bind(date.timeIntervalSince1970) + " RETURNING kind"
        let final = q
        return try await credentialTransaction { session in try await session.rows(final).count }
    }

    public func deleteCredentials(_ kind: StoredCredential.Kind, appID: String) async throws -> Int {
        var q = sql("DELETE FROM oauth_credential WHERE ")
        q += q.scope() + " AND kind = " + q.bind(kind.rawValue) + " AND app_id = " + q.bind(appID) + " RETURNING kind"
        let final = q
        return try await credentialTransaction { session in try await session.rows(final).count }
    }

    public func countCredentials(_ kind: StoredCredential.Kind, appID: String, liveAt date: Date) async throws -> Int {
        var q = sql("SELECT count(*) FROM oauth_credential WHERE ")
        q += q.scope() + " AND kind = " + q.bind(kind.rawValue) + " AND app_id = " + q.bind(appID) + " AND expires > " + q.bind(date.timeIntervalSince1970)
        let final = q
        return try await read { session in Int(try await session.row(final).map { try $0.int(0) } ?? 0) }
    }

    public func replaceCredentialDetails(_ kind: StoredCredential.Kind, digest: Data, from old: Data, to new: Data) async throws -> Bool {
        var q = sql("UPDATE oauth_credential SET details = ")
        q += q.bind(new) + " WHERE " + q.scope() + " AND kind = " + q.bind(kind.rawValue) + " AND digest = " + q.bind(digest)
        q += " AND details = " + q.bind(old) + " RETURNING kind"
        let final = q
        return try await credentialTransaction { session in try await session.row(final) != nil }
    }

    private func select(_ kind: StoredCredential.Kind, _ digest: Data) -> SQLStatement {
        var q = sql("SELECT " + Self.columns + " FROM oauth_credential WHERE ")
        q += q.scope() + " AND kind = " + q.bind(kind.rawValue) + " AND digest = " + q.bind(digest)
        return q
    }

    private static func credential(_ row: SQLRow) throws -> StoredCredential {
        guard let kind = StoredCredential.Kind(rawValue: try row.string(0)) else {
            throw HealthStoreError.corruptRecord("a credential has an unknown kind \(try row.string(0))")
        }
        return StoredCredential(
            kind: kind, digest: try row.data(1), appID: try row.optionalString(2), family: try row.data(3),
            expires: Date(timeIntervalSince1970: try row.double(4)), spent: try row.int(5) != 0, details: try row.data(6))
    }

    private func credentialTransaction<T: Sendable>(_ body: (any SQLSession) async throws -> T) async throws -> T {
        if isLocked { throw HealthStoreError.storeLocked(path: location) }
        return try await guarded { try await database.transaction(body) }
    }
}
