import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

/// Consent storage on PostgreSQL: apps (details sealed), grants and the audit log (types,
/// anchors and counts in clear), one-time card shares (card list sealed) — all under the person.
extension PostgresHealthStore {
    public func saveApp(_ app: StoredApp) async throws {
        let r = app.registration
        let details = try sealer.seal(ConsentCoding.details(r))
        try await write { w in
            var q = w.query("INSERT INTO app (person_id, id, secret_digest, registered_date, details) VALUES ($1, ")
            q += q.bind(r.id) + ", " + q.bind(app.secretDigest) + ", " + q.bind(r.registeredDate.timeIntervalSince1970) + ", " + q.bind(details) + ")"
            try await w.session.run(q)
        }
    }

    public func app(id: String) async throws -> StoredApp? {
        var q = query("SELECT id, secret_digest, registered_date, details, access_revision FROM app WHERE person_id = $1 AND id = ")
        q += q.bind(id)
        let sealer = self.sealer
        let final = q
        return try await read { session in try await session.row(final).map { try Self.app($0, sealer) } }
    }

    public func apps() async throws -> [StoredApp] {
        let q = query("SELECT id, secret_digest, registered_date, details, access_revision FROM app WHERE person_id = $1 ORDER BY registered_date, id COLLATE \"C\"")
        let sealer = self.sealer
        return try await read { session in try await session.rows(q).map { try Self.app($0, sealer) } }
    }

    static func app(_ row: PGRow, _ sealer: any RecordSealer) throws -> StoredApp {
        try ConsentCoding.app(id: try row.string(0), secretDigest: try row.data(1), registered: try row.double(2), details: try sealer.open(try row.data(3)),
            accessRevision: Int(try row.int(4)))
    }

    public func saveGrants(_ grants: [ReadGrant]) async throws {
        guard !grants.isEmpty else { return }
        try await write { w in
            for g in grants {
                var q = w.query("""
                    INSERT INTO read_grant (person_id, app_id, data_type, decision, new_data, approved_through, changed_anchor, decided_date) VALUES ($1, 
                    """)
                let values = [
                    q.bind(g.appID), q.bind(g.type.name), q.bind(g.decision.rawValue), q.bind(g.newData.rawValue), q.bind(g.approvedThrough.rawValue),
                    q.bind(g.changedAnchor.rawValue), q.bind(g.decidedDate.timeIntervalSince1970),
                ]
                q += values.joined(separator: ", ") + """
                    ) ON CONFLICT (person_id, app_id, data_type) DO UPDATE SET decision = EXCLUDED.decision, new_data = EXCLUDED.new_data,
                    approved_through = EXCLUDED.approved_through, changed_anchor = EXCLUDED.changed_anchor, decided_date = EXCLUDED.decided_date
                    """
                try await w.session.run(q)
            }
        }
    }

    public func grants(appID: String) async throws -> [ReadGrant] {
        var q = query("""
            SELECT data_type, decision, new_data, approved_through, changed_anchor, decided_date FROM read_grant
            WHERE person_id = $1 AND app_id = 
            """)
        q += q.bind(appID) + " ORDER BY data_type COLLATE \"C\""
        let final = q
        return try await read { session in
            try await session.rows(final).map { row in
                try ConsentCoding.grant(
                    appID: appID, type: try row.string(0), decision: try row.string(1), newData: try row.string(2), approvedThrough: try row.int(3),
                    changedAnchor: try row.int(4), decided: try row.double(5))
            }
        }
    }

    public func removeAccess(appID: String) async throws -> Int {
        try await write { w in
            var q = w.query("DELETE FROM read_grant WHERE person_id = $1 AND app_id = ")
            q += q.bind(appID) + " RETURNING data_type"
            let removed = try await w.session.rows(q).count
            var shares = w.query("DELETE FROM card_share WHERE person_id = $1 AND app_id = ")
            shares += shares.bind(appID)
            try await w.session.run(shares)
            var bump = w.query("UPDATE app SET access_revision = access_revision + 1 WHERE person_id = $1 AND id = ")
            bump += bump.bind(appID)
            try await w.session.run(bump)
            return removed
        }
    }

    public func reserveAnchor() async throws -> QueryAnchor {
        try await write { w in QueryAnchor(rawValue: w.nextAnchor()) }
    }

    public func latestAnchor(records: [TypeWindow<ConsentCategory>], samples: [TypeWindow<QuantityType>]) async throws -> QueryAnchor {
        guard !records.isEmpty || !samples.isEmpty else { return .initial }
        var q = query("SELECT GREATEST(")
        var parts = 0
        func add(_ table: String, _ alias: String, _ typeColumn: String, _ addedColumn: String, _ windows: [TypeWindow<some RawRepresentable<String> & Hashable & Sendable>]) {
            if parts > 0 { q += ", " }
            parts += 1
            q += "(SELECT MAX(\(alias).anchor) FROM \(table) \(alias) WHERE \(alias).person_id = $1"
            PostgresQueryBuilder.visibility(windows, type: "\(alias).\(typeColumn)", added: "\(alias).\(addedColumn)", into: &q)
            q += ")"
        }
        if !records.isEmpty {
            add("resource", "r", "category", "id", records)
            add("tombstone", "t", "clinical_type", "added_anchor", records)
        }
        if !samples.isEmpty {
            add("quantity_sample", "q", "quantity_type", "anchor", samples)
            add("quantity_sample_tombstone", "t", "quantity_type", "added_anchor", samples)
        }
        q += ")"
        let final = q
        return try await read { session in QueryAnchor(rawValue: try await session.row(final)?.optionalInt(0) ?? 0) }
    }

    public func hasData(ofType type: HealthDataType, addedAfter anchor: QueryAnchor) async throws -> Bool {
        var q: PGQuery
        switch type {
        case .clinical, .context:
            q = query("SELECT EXISTS (SELECT 1 FROM resource WHERE person_id = $1 AND category = ")
            q += q.bind(type.consentCategory?.rawValue ?? "") + " AND id > "
        case .quantity(let t):
            q = query("SELECT EXISTS (SELECT 1 FROM quantity_sample WHERE person_id = $1 AND quantity_type = ")
            q += q.bind(t.rawValue) + " AND anchor > "
        }
        q += q.bind(anchor.rawValue) + ")"
        let final = q
        return try await read { session in try await session.row(final)?.bool(0) ?? false }
    }

    public func appendAudit(_ entry: AuditEntry) async throws {
        var q = query("INSERT INTO audit_entry (person_id, app_id, date, operation, data_types, record_count) VALUES ($1, ")
        q += q.bind(entry.appID) + ", " + q.bind(entry.date.timeIntervalSince1970) + ", " + q.bind(entry.operation) + ", "
        q += q.bind(ConsentCoding.typeList(entry.types)) + ", " + q.bind(Int64(entry.count)) + ")"
        let final = q
        try await read { session in try await session.run(final) }
    }

    public func auditEntries(appID: String?) async throws -> [AuditEntry] {
        try await audit(appID: appID, order: " ORDER BY id")
    }

    public func auditEntries(appID: String?, newestFirst limit: Int, offset: Int) async throws -> [AuditEntry] {
        try await audit(appID: appID, order: " ORDER BY id DESC LIMIT \(max(0, limit)) OFFSET \(max(0, offset))")
    }

    /// Audit entries of one app (or all) in an order; `order` is built from integers only.
    private func audit(appID: String?, order: String) async throws -> [AuditEntry] {
        var q = query("SELECT app_id, date, operation, data_types, record_count FROM audit_entry WHERE person_id = $1")
        if let appID { q += " AND app_id = " + q.bind(appID) }
        q += order
        let final = q
        return try await read { session in
            try await session.rows(final).map { row in
                AuditEntry(
                    appID: try row.string(0), date: Date(timeIntervalSince1970: try row.double(1)), operation: try row.string(2),
                    types: ConsentCoding.types(try row.string(3)), count: Int(try row.int(4)))
            }
        }
    }

    public func anchorSecret() async throws -> Data {
        var insert = query("INSERT INTO anchor_secret (person_id, secret) VALUES ($1, ")
        insert += insert.bind(AnchorSealer.newSecret()) + ") ON CONFLICT (person_id) DO NOTHING"
        let make = insert
        let select = query("SELECT secret FROM anchor_secret WHERE person_id = $1")
        if let secret = try await read({ session in try await session.row(select)?.data(0) }) { return secret }
        return try await write { w in
            try await w.session.run(make)
            guard let secret = try await w.session.row(select)?.data(0) else { throw HealthStoreError.corruptRecord("the anchor secret is missing") }
            return secret
        }
    }

    public func saveCardShare(_ share: CardShare) async throws {
        var q = query("INSERT INTO card_share (person_id, token_digest, app_id, created_date, cards) VALUES ($1, ")
        q += q.bind(share.tokenDigest) + ", " + q.bind(share.appID) + ", " + q.bind(share.createdDate.timeIntervalSince1970) + ", "
        q += q.bind(try sealer.seal(ConsentCoding.cards(share.cardIdentifiers))) + ")"
        let final = q
        try await write { w in try await w.session.run(final) }
    }

    public func takeCardShare(tokenDigest: Data) async throws -> CardShare? {
        var q = query("DELETE FROM card_share WHERE person_id = $1 AND token_digest = ")
        q += q.bind(tokenDigest) + " RETURNING app_id, created_date, cards"
        let sealer = self.sealer
        let final = q
        return try await write { w in
            guard let row = try await w.session.row(final) else { return nil }
            return CardShare(
                tokenDigest: tokenDigest, appID: try row.string(0), cardIdentifiers: ConsentCoding.cardIdentifiers((try? sealer.open(try row.data(2))) ?? Data()),
                createdDate: Date(timeIntervalSince1970: try row.double(1)))
        }
    }
}
