import ClinicalRecords
import FHIR
import Foundation
import Synchronization

/// Consent storage: apps (details sealed), grants and the audit log (types, anchors and counts
/// in clear), one-time card shares (card list sealed).
extension DatabaseHealthStore {
    public func saveApp(_ app: StoredApp) async throws {
        let r = app.registration
        let details = try sealer.seal(ConsentCoding.details(r))
        try await write { w in
            var q = w.sql("INSERT INTO app (")
            q += q.personColumn + "id, secret_digest, registered_date, details) VALUES (" + q.personValue + q.bind(r.id) + ", " + q.bind(app.secretDigest)
            q += ", " + q.bind(r.registeredDate.timeIntervalSince1970) + ", " + q.bind(details) + ")"
            try await w.session.run(q)
        }
    }

    public func app(id: String) async throws -> StoredApp? {
        var q = sql("SELECT id, secret_digest, registered_date, details, access_revision FROM app WHERE ")
        q += q.scope() + " AND id = " + q.bind(id)
        let sealer = self.sealer
        let final = q
        let remembered = self.remembered
        return try await read { session in try await session.row(final).map { try Self.app($0, sealer, remembered) } }
    }

    public func apps() async throws -> [StoredApp] {
        var q = sql("SELECT id, secret_digest, registered_date, details, access_revision FROM app WHERE ")
        q += q.scope() + " ORDER BY registered_date, id" + dialect.byteOrder
        let sealer = self.sealer
        let final = q
        let remembered = self.remembered
        return try await read { session in try await session.rows(final).map { try Self.app($0, sealer, remembered) } }
    }

    static func app(_ row: SQLRow, _ sealer: any RecordSealer, _ remembered: RememberedRows) throws -> StoredApp {
        let id = try row.string(0), digest = try row.data(1), registered = try row.double(2), details = try row.data(3)
        let revision = Int(try row.int(4))
        // Every authenticated request reads its app; opening and checking the details again
        // each time was a visible share of a request. A row's registration never changes.
        let key = AppRowKey(id: id, secretDigest: digest, registered: registered, details: details)
        if let known = remembered.app(key) {
            return StoredApp(registration: known.registration, secretDigest: known.secretDigest, accessRevision: revision)
        }
        let app = try ConsentCoding.app(id: id, secretDigest: digest, registered: registered, details: try sealer.open(details), accessRevision: revision)
        remembered.keep(app, for: key)
        return app
    }

    public func saveGrants(_ grants: [ReadGrant]) async throws {
        guard !grants.isEmpty else { return }
        try await write { w in
            for g in grants {
                var q = w.sql("INSERT INTO read_grant (")
                q += q.personColumn + "app_id, data_type, decision, new_data, approved_through, changed_anchor, decided_date, history_days) VALUES ("
                q += q.personValue
                let values = [
                    q.bind(g.appID), q.bind(g.type.name), q.bind(g.decision.rawValue), q.bind(g.newData.rawValue), q.bind(g.approvedThrough.rawValue),
                    q.bind(g.changedAnchor.rawValue), q.bind(g.decidedDate.timeIntervalSince1970), g.history.days.map { q.bind($0) } ?? "NULL",
                ]
                q += values.joined(separator: ", ") + ") ON CONFLICT (" + q.personColumn + """
                    app_id, data_type) DO UPDATE SET decision = EXCLUDED.decision, new_data = EXCLUDED.new_data,
                    approved_through = EXCLUDED.approved_through, changed_anchor = EXCLUDED.changed_anchor, decided_date = EXCLUDED.decided_date,
                    history_days = EXCLUDED.history_days
                    """
                try await w.session.run(q)
            }
        }
    }

    public func grants(appID: String) async throws -> [ReadGrant] {
        var q = sql("SELECT " + Self.grantColumns + " FROM read_grant WHERE ")
        q += q.scope() + " AND app_id = " + q.bind(appID) + " ORDER BY data_type" + dialect.byteOrder
        let final = q
        return try await read { session in try await session.rows(final).map { row in try Self.grant(row, appID: appID) } }
    }

    private static let grantColumnNames = ["data_type", "decision", "new_data", "approved_through", "changed_anchor", "decided_date", "history_days"]

    /// The columns ``grant(_:appID:)`` reads.
    static let grantColumns = grantColumnNames.joined(separator: ", ")

    /// The same columns of the grant table joined as `g`.
    static let joinedGrantColumns = grantColumnNames.map { "g." + $0 }.joined(separator: ", ")

    /// A grant read in the columns of ``grantColumns(_:)``.
    static func grant(_ row: SQLRow, appID: String) throws -> ReadGrant {
        try ConsentCoding.grant(
            appID: appID, type: try row.string(0), decision: try row.string(1), newData: try row.string(2), approvedThrough: try row.int(3),
            changedAnchor: try row.int(4), decided: try row.double(5), historyDays: try row.optionalInt(6))
    }

    public func removeAccess(appID: String) async throws -> Int {
        try await write { w in
            var q = w.sql("DELETE FROM read_grant WHERE ")
            q += q.scope() + " AND app_id = " + q.bind(appID) + " RETURNING data_type"
            let removed = try await w.session.rows(q).count
            var shares = w.sql("DELETE FROM card_share WHERE ")
            shares += shares.scope() + " AND app_id = " + shares.bind(appID)
            try await w.session.run(shares)
            var medications = w.sql("DELETE FROM medication_choice WHERE ")
            medications += medications.scope() + " AND app_id = " + medications.bind(appID)
            try await w.session.run(medications)
            var credentials = w.sql("DELETE FROM oauth_credential WHERE ")
            credentials += credentials.scope() + " AND app_id = " + credentials.bind(appID)
            try await w.session.run(credentials)
            var bump = w.sql("UPDATE app SET access_revision = access_revision + 1 WHERE ")
            bump += bump.scope() + " AND id = " + bump.bind(appID)
            try await w.session.run(bump)
            return removed
        }
    }

    public func reserveAnchor() async throws -> QueryAnchor {
        try await write { w in QueryAnchor(rawValue: w.nextAnchor()) }
    }

    public func latestAnchor(records: [TypeWindow<ConsentCategory>], samples: [TypeWindow<QuantityType>]) async throws -> QueryAnchor {
        guard !records.isEmpty || !samples.isEmpty else { return .initial }
        var q = sql("SELECT \(dialect.greatest)(")
        var parts = 0
        func add(
            _ table: String, _ alias: String, _ typeColumn: String, _ addedColumn: String, _ dated: String, _ identity: String?,
            _ windows: [TypeWindow<some RawRepresentable<String> & Hashable & Sendable>]) {
            if parts > 0 { q += ", " }
            parts += 1
            q += "COALESCE((SELECT MAX(\(alias).anchor) FROM \(table) \(alias) WHERE \(q.scope(alias))"
            RecordSQL.visibility(windows, type: "\(alias).\(typeColumn)", added: "\(alias).\(addedColumn)", dated: dated, identity: identity, into: &q)
            q += "), 0)"
        }
        if !records.isEmpty {
            add("resource", "r", "category", dialect.resourceAddedColumn, RecordSQL.resourceDate("r"), "r.identity", records)
            add("tombstone", "t", "clinical_type", "added_anchor", "t.dated", "t.identity", records)
        }
        if !samples.isEmpty {
            add("quantity_sample", "q", "quantity_type", "anchor", "q.start_date", nil, samples)
            add("quantity_sample_tombstone", "t", "quantity_type", "added_anchor", "t.dated", nil, samples)
        }
        q += ")"
        let final = q
        return try await read { session in QueryAnchor(rawValue: try await session.row(final)?.optionalInt(0) ?? 0) }
    }

    public func hasData(ofType type: HealthDataType, addedAfter anchor: QueryAnchor) async throws -> Bool {
        var q = sql("SELECT EXISTS (SELECT 1 FROM ")
        switch type {
        case .clinical, .context:
            q += "resource WHERE " + q.scope() + " AND category = " + q.bind(type.consentCategory?.rawValue ?? "") + " AND \(dialect.resourceAddedColumn) > "
        case .quantity(let t):
            q += "quantity_sample WHERE " + q.scope() + " AND quantity_type = " + q.bind(t.rawValue) + " AND anchor > "
        }
        q += q.bind(anchor.rawValue) + ")"
        let final = q
        return try await read { session in try await session.row(final)?.bool(0) ?? false }
    }

    public func appendAudit(_ entry: AuditEntry) async throws {
        if isLocked { throw HealthStoreError.storeLocked(path: location) }
        if audits.append(entry) { scheduleAuditWrite() }
    }

    /// Writes the waiting audit entries in one transaction (see ``BatchQueue``); on failure they
    /// wait for the next try. The statements are this person's alone: a caller waiting for the
    /// log (a person reading it, a command) is on a request path.
    public func flushAudit() async throws {
        try await flushAudit(merging: false)
    }

    /// `merging`: the rows may share statements with other stores' rows of the table (PostgreSQL's
    /// group commit, ``LogInsert/merged(_:)``): only for the background flush at a tick, which no
    /// request waits on.
    private func flushAudit(merging: Bool) async throws {
        if let error = await audits.serialized({ [self] in
            do {
                try await writeAuditBatch(merging: merging)
                return nil
            } catch { return error }
        }) {
            throw error
        }
    }

    private func writeAuditBatch(merging: Bool) async throws {
        let batch = audits.take()
        guard !batch.isEmpty else { return }
        var rows = LogInsert(dialect, table: "audit_entry", columns: ["app_id", "date", "operation", "data_types", "record_count"])
        for entry in batch {
            rows.append([
                .text(entry.appID), .double(entry.date.timeIntervalSince1970), .text(entry.operation), .text(ConsentCoding.typeList(entry.types)),
                .int(Int64(entry.count)),
            ])
        }
        let final = rows
        do {
            // Not under the store's write lock: auditing reads must not wait for an import.
            try await guarded {
                if merging { try await database.logWrite(final) } else { try await database.logWrite(final.statements()) }
            }
            audits.written()
        } catch {
            if audits.restore(batch) { scheduleAuditWrite() }
            throw error
        }
    }

    private func scheduleAuditWrite() {
        let wait = audits.wait
        // Stores on a shared database share one clock; a batch retrying after failures waits alone.
        if wait == BatchQueue<AuditEntry>.delay, let ticker = database.logTicker {
            ticker.schedule { [self] in try? await self.flushAudit(merging: true) }
            return
        }
        Task {
            try? await Task.sleep(for: wait)
            try? await self.flushAudit(merging: true)
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
        try await flushAudit()
        var q = sql("SELECT app_id, date, operation, data_types, record_count FROM audit_entry WHERE ")
        q += q.scope()
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
        // Made once per store and never changed: read once per store object.
        if let known = remembered.anchorSecret { return known }
        var insert = sql("INSERT INTO anchor_secret (")
        insert += insert.singletonColumn + ", secret) VALUES (" + insert.singletonValue + ", " + insert.bind(AnchorSealer.newSecret())
        insert += ") ON CONFLICT (" + insert.singletonColumn + ") DO NOTHING"
        var select = sql("SELECT secret FROM anchor_secret WHERE ")
        select += select.singleton
        let make = insert
        let find = select
        let secret: Data
        if let stored = try await read({ session in try await session.row(find)?.data(0) }) {
            secret = stored
        } else {
            secret = try await write { w in
                try await w.session.run(make)
                guard let secret = try await w.session.row(find)?.data(0) else { throw HealthStoreError.corruptRecord("the anchor secret is missing") }
                return secret
            }
        }
        remembered.anchorSecret = secret
        return secret
    }

    public func medicationChoice(appID: String) async throws -> Set<String>? {
        var q = sql("SELECT entries FROM medication_choice WHERE ")
        q += q.scope() + " AND app_id = " + q.bind(appID)
        let final = q
        let sealer = self.sealer
        return try await read { session in
            guard let row = try await session.row(final) else { return nil }
            return Set(ConsentCoding.identifiers(try sealer.open(try row.data(0))))
        }
    }

    public func saveMedicationChoice(appID: String, entries: Set<String>?) async throws {
        var q = sql()
        if let entries {
            q += "INSERT INTO medication_choice (" + q.personColumn + "app_id, entries) VALUES (" + q.personValue + q.bind(appID) + ", "
            q += q.bind(try sealer.seal(ConsentCoding.identifierList(entries.sorted()))) + ") ON CONFLICT (" + q.personColumn + "app_id) DO UPDATE SET entries = EXCLUDED.entries"
        } else {
            q += "DELETE FROM medication_choice WHERE " + q.scope() + " AND app_id = " + q.bind(appID)
        }
        let final = q
        try await write { w in try await w.session.run(final) }
    }

    public func oldestConfirmation() async throws -> Date? {
        var q = sql("SELECT MIN(c) FROM (SELECT MAX(decided_date) AS c FROM read_grant WHERE ")
        q += q.scope() + " AND decision = 'allowed' GROUP BY app_id) confirmed"
        let final = q
        return try await read { session in try await session.row(final)?.optionalDouble(0).map(Date.init(timeIntervalSince1970:)) }
    }

    public func setting(_ name: String) async throws -> String? {
        var q = sql("SELECT value FROM person_setting WHERE ")
        q += q.scope() + " AND name = " + q.bind(name)
        let final = q
        return try await read { session in try await session.row(final)?.string(0) }
    }

    public func saveSetting(_ name: String, value: String?) async throws {
        try await write { w in
            var q = w.sql()
            if let value {
                q += "INSERT INTO person_setting (" + q.personColumn + "name, value) VALUES (" + q.personValue + q.bind(name) + ", " + q.bind(value)
                q += ") ON CONFLICT (" + q.personColumn + "name) DO UPDATE SET value = EXCLUDED.value"
            } else {
                q += "DELETE FROM person_setting WHERE " + q.scope() + " AND name = " + q.bind(name)
            }
            try await w.session.run(q)
        }
    }

    public func saveCardShare(_ share: CardShare) async throws {
        var q = sql("INSERT INTO card_share (")
        q += q.personColumn + "token_digest, app_id, created_date, cards) VALUES (" + q.personValue + q.bind(share.tokenDigest) + ", "
        q += q.bind(share.appID) + ", " + q.bind(share.createdDate.timeIntervalSince1970) + ", "
        q += q.bind(try sealer.seal(ConsentCoding.identifierList(share.cardIdentifiers))) + ")"
        let final = q
        try await write { w in try await w.session.run(final) }
    }

    public func takeCardShare(tokenDigest: Data) async throws -> CardShare? {
        var q = sql("DELETE FROM card_share WHERE ")
        q += q.scope() + " AND token_digest = " + q.bind(tokenDigest) + " RETURNING app_id, created_date, cards"
        let sealer = self.sealer
        let final = q
        return try await write { w in
            guard let row = try await w.session.row(final) else { return nil }
            return CardShare(
                tokenDigest: tokenDigest, appID: try row.string(0), cardIdentifiers: ConsentCoding.identifiers((try? sealer.open(try row.data(2))) ?? Data()),
                createdDate: Date(timeIntervalSince1970: try row.double(1)))
        }
    }
}

/// What identifies an app row's unchanging part (``DatabaseHealthStore/app(_:_:_:)``).
struct AppRowKey: Hashable, Sendable {
    let id: String
    let secretDigest: Data
    let registered: Double
    let details: Data
}
