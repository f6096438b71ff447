import ClinicalRecords
import FHIR
import Foundation
import GRDB

/// Consent storage for SQLite: apps (details sealed), grants and the audit log (types,
/// anchors and counts in clear), one-time card shares (card list sealed).
extension SQLiteHealthStore {
    public func saveApp(_ app: StoredApp) async throws {
        let r = app.registration
        let details = try sealer.seal(ConsentCoding.details(r))
        try await write { db in
            try db.execute(
                sql: "INSERT INTO app (id, secret_digest, registered_date, details) VALUES (?, ?, ?, ?)",
                arguments: [r.id, app.secretDigest, r.registeredDate.timeIntervalSince1970, details])
        }
    }

    public func app(id: String) async throws -> StoredApp? {
        let sealer = self.sealer
        return try await read { db in
            try Row.fetchOne(db, sql: "SELECT id, secret_digest, registered_date, details, access_revision FROM app WHERE id = ?", arguments: [id])
                .map { try Self.app($0, sealer) }
        }
    }

    public func apps() async throws -> [StoredApp] {
        let sealer = self.sealer
        return try await read { db in
            try Row.fetchAll(db, sql: "SELECT id, secret_digest, registered_date, details, access_revision FROM app ORDER BY registered_date, id").map { try Self.app($0, sealer) }
        }
    }

    static func app(_ row: Row, _ sealer: any RecordSealer) throws -> StoredApp {
        try ConsentCoding.app(id: row[0], secretDigest: row[1], registered: row[2], details: try sealer.open(row[3]), accessRevision: row[4])
    }

    public func saveGrants(_ grants: [ReadGrant]) async throws {
        try await write { db in
            for g in grants {
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO read_grant (app_id, data_type, decision, new_data, approved_through, changed_anchor, decided_date)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        g.appID, g.type.name, g.decision.rawValue, g.newData.rawValue, g.approvedThrough.rawValue, g.changedAnchor.rawValue,
                        g.decidedDate.timeIntervalSince1970,
                    ])
            }
        }
    }

    public func grants(appID: String) async throws -> [ReadGrant] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT data_type, decision, new_data, approved_through, changed_anchor, decided_date FROM read_grant WHERE app_id = ?",
                arguments: [appID]
            ).map { row in
                let typeName: String = row[0]
                guard let type = HealthDataType(name: typeName), let decision = GrantDecision(rawValue: row[1]), let newData = NewDataPolicy(rawValue: row[2])
                else { throw HealthStoreError.corruptRecord("grant of app \(appID) for \(typeName)") }
                return ReadGrant(
                    appID: appID, type: type, decision: decision, newData: newData, approvedThrough: QueryAnchor(rawValue: row[3]),
                    changedAnchor: QueryAnchor(rawValue: row[4]), decidedDate: Date(timeIntervalSince1970: row[5]))
            }
        }
    }

    public func removeAccess(appID: String) async throws -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM read_grant WHERE app_id = ?", arguments: [appID])
            let removed = db.changesCount
            try db.execute(sql: "DELETE FROM card_share WHERE app_id = ?", arguments: [appID])
            try db.execute(sql: "UPDATE app SET access_revision = access_revision + 1 WHERE id = ?", arguments: [appID])
            return removed
        }
    }

    public func reserveAnchor() async throws -> QueryAnchor {
        try await write { db in
            var writer = try SQLiteRecordWriter(db: db, sealer: PlainSealer())
            let anchor = writer.nextAnchor()
            try writer.finish()
            return QueryAnchor(rawValue: anchor)
        }
    }

    public func latestAnchor(records: [TypeWindow<ConsentCategory>], samples: [TypeWindow<QuantityType>]) async throws -> QueryAnchor {
        guard !records.isEmpty || !samples.isEmpty else { return .initial }
        var parts: [String] = []
        var args = StatementArguments()
        func part(_ table: String, _ alias: String, _ typeColumn: String, _ addedColumn: String, _ windows: [TypeWindow<some RawRepresentable<String> & Hashable & Sendable>]) {
            var text = "SELECT MAX(\(alias).anchor) FROM \(table) \(alias) WHERE 1"
            SQLiteQueryBuilder.visibility(windows, type: "\(alias).\(typeColumn)", added: "\(alias).\(addedColumn)", into: &text, &args)
            parts.append(text)
        }
        if !records.isEmpty {
            part("resource", "r", "category", "added_anchor", records)
            part("tombstone", "t", "clinical_type", "added_anchor", records)
        }
        if !samples.isEmpty {
            part("quantity_sample", "q", "quantity_type", "anchor", samples)
            part("quantity_sample_tombstone", "t", "quantity_type", "added_anchor", samples)
        }
        let sql = "SELECT MAX(m) FROM (" + parts.map { "SELECT (\($0)) AS m" }.joined(separator: " UNION ALL ") + ")"
        let finalArgs = args
        return try await read { db in QueryAnchor(rawValue: try Int64.fetchOne(db, sql: sql, arguments: finalArgs) ?? 0) }
    }

    public func hasData(ofType type: HealthDataType, addedAfter anchor: QueryAnchor) async throws -> Bool {
        let sql: String
        let name: String
        switch type {
        case .clinical(let t):
            sql = "SELECT EXISTS (SELECT 1 FROM resource WHERE category = ? AND added_anchor > ?)"
            name = t.rawValue
        case .context(let c):
            sql = "SELECT EXISTS (SELECT 1 FROM resource WHERE category = ? AND added_anchor > ?)"
            name = c.rawValue
        case .quantity(let t):
            sql = "SELECT EXISTS (SELECT 1 FROM quantity_sample WHERE quantity_type = ? AND anchor > ?)"
            name = t.rawValue
        }
        return try await read { db in try Bool.fetchOne(db, sql: sql, arguments: [name, anchor.rawValue]) ?? false }
    }

    public func appendAudit(_ entry: AuditEntry) async throws {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO audit_entry (app_id, date, operation, data_types, record_count) VALUES (?, ?, ?, ?, ?)",
                arguments: [entry.appID, entry.date.timeIntervalSince1970, entry.operation, entry.types.map(\.name).joined(separator: " "), entry.count])
        }
    }

    public func auditEntries(appID: String?) async throws -> [AuditEntry] {
        try await audit(appID: appID, order: " ORDER BY id")
    }

    public func auditEntries(appID: String?, newestFirst limit: Int, offset: Int) async throws -> [AuditEntry] {
        try await audit(appID: appID, order: " ORDER BY id DESC LIMIT \(max(0, limit)) OFFSET \(max(0, offset))")
    }

    /// Audit entries of one app (or all) in an order; `order` is built from integers only.
    private func audit(appID: String?, order: String) async throws -> [AuditEntry] {
        var sql = "SELECT app_id, date, operation, data_types, record_count FROM audit_entry"
        var args = StatementArguments()
        if let appID {
            sql += " WHERE app_id = ?"
            args += [appID]
        }
        let finalSQL = sql + order
        let finalArgs = args
        return try await read { db in try Row.fetchAll(db, sql: finalSQL, arguments: finalArgs).map(Self.auditEntry) }
    }

    static func auditEntry(_ row: Row) -> AuditEntry {
        AuditEntry(
            appID: row[0], date: Date(timeIntervalSince1970: row[1]), operation: row[2],
            types: (row[3] as String).split(separator: " ").compactMap { HealthDataType(name: String($0)) }, count: row[4])
    }

    public func anchorSecret() async throws -> Data {
        try await read { db in
            guard let secret = try Data.fetchOne(db, sql: "SELECT secret FROM anchor_secret WHERE id = 1") else {
                throw HealthStoreError.corruptRecord("the anchor secret is missing")
            }
            return secret
        }
    }

    public func saveCardShare(_ share: CardShare) async throws {
        let cards = try sealer.seal(Data(JSONWriter.minified(.array(share.cardIdentifiers.map(JSONValue.string)))))
        try await write { db in
            try db.execute(
                sql: "INSERT INTO card_share (token_digest, app_id, created_date, cards) VALUES (?, ?, ?, ?)",
                arguments: [share.tokenDigest, share.appID, share.createdDate.timeIntervalSince1970, cards])
        }
    }

    public func takeCardShare(tokenDigest: Data) async throws -> CardShare? {
        let sealer = self.sealer
        return try await write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT app_id, created_date, cards FROM card_share WHERE token_digest = ?", arguments: [tokenDigest])
            else { return nil }
            try db.execute(sql: "DELETE FROM card_share WHERE token_digest = ?", arguments: [tokenDigest])
            let ids = (try? JSONReader().read(sealer.open(row[2])))?.arrayValue?.compactMap(\.stringValue) ?? []
            return CardShare(tokenDigest: tokenDigest, appID: row[0], cardIdentifiers: ids, createdDate: Date(timeIntervalSince1970: row[1]))
        }
    }
}
