import ClinicalRecords
import FHIR
import Foundation

extension DatabaseHealthStore {
    public func sources() async throws -> [RecordSource] {
        let sealer = self.sealer
        var q = sql("SELECT identifier, name FROM source WHERE ")
        q += q.scope()
        let final = q
        return try await read { session in
            try await session.rows(final).map { RecordSource(identifier: try $0.opened(0, sealer), name: try $0.opened(1, sealer)) }
        }.sorted { $0.identifier < $1.identifier }
    }

    public func records(_ query: RecordQuery) async throws -> [ClinicalRecord] {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        let q = RecordSQL(dialect: dialect, sealer: sealer).select(query)
        let sealer = self.sealer
        return try await read { session in try await session.rows(q).compactMap { try RowCoding.stored($0, sealer).clinicalRecord } }
    }

    public func count(_ query: RecordQuery) async throws -> Int {
        let q = RecordSQL(dialect: dialect, sealer: sealer).count(query)
        return try await read { session in Int(try await session.row(q)?.int(0) ?? 0) }
    }

    public func recordCounts() async throws -> [ClinicalType: Int] {
        let q = RecordSQL(dialect: dialect, sealer: sealer).countsByType()
        let rows = try await read { session in try await session.rows(q).map { (try $0.string(0), Int(try $0.int(1))) } }
        var counts: [ClinicalType: Int] = [:]
        for (type, n) in rows { if let t = ClinicalType(rawValue: type) { counts[t, default: 0] += n } }
        return counts
    }

    public func latestRecords(perType limit: Int) async throws -> [ClinicalRecord] {
        guard limit > 0 else {
            if limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
            return []
        }
        let q = RecordSQL(dialect: dialect, sealer: sealer).latest(perType: limit)
        let sealer = self.sealer
        return try await read { session in try await session.rows(q).compactMap { try RowCoding.stored($0, sealer).clinicalRecord } }
    }

    public func records(identifiedBy identities: [RecordIdentity]) async throws -> [ClinicalRecord] {
        guard identities.count <= 500 else { throw HealthStoreError.invalidArgument("at most 500 identities are looked up at once") }
        guard !identities.isEmpty else { return [] }
        let q = RecordSQL(dialect: dialect, sealer: sealer).identified(identities)
        let sealer = self.sealer
        return try await read { session in try await session.rows(q).compactMap { try RowCoding.stored($0, sealer).clinicalRecord } }
    }

    public func resource(_ identity: RecordIdentity, visible windows: [TypeWindow<ConsentCategory>]?) async throws -> StoredResource? {
        var q = sql()
        RecordSQL.selectResources(into: &q)
        q += " WHERE " + q.scope("r") + " AND r.identity = " + q.bind(sealer.identityKey([identity.source, identity.resourceType.rawValue, identity.identifier]))
        if let windows { RecordSQL.visibility(windows, type: "r.category", added: "r.\(dialect.resourceAddedColumn)", dated: RecordSQL.resourceDate("r"), identity: "r.identity", into: &q) }
        let sealer = self.sealer
        let final = q
        return try await read { session in try await session.row(final).map { try RowCoding.stored($0, sealer) } }
    }

    public func contextResources(ofType type: FHIRResourceType, source: String?, visible windows: [TypeWindow<ConsentCategory>]?) async throws
        -> [StoredResource]
    {
        var q = sql()
        RecordSQL.selectResources(into: &q)
        q += " WHERE " + q.scope("r") + " AND r.clinical_type IS NULL AND r.resource_type = " + q.bind(type.rawValue)
        if let source { q += " AND s.identity = " + q.bind(ConsentCoding.sourceIdentity(source, sealer)) }
        if let windows { RecordSQL.visibility(windows, type: "r.category", added: "r.\(dialect.resourceAddedColumn)", dated: RecordSQL.resourceDate("r"), identity: "r.identity", into: &q) }
        q += " ORDER BY r.id"
        let sealer = self.sealer
        let final = q
        return try await read { session in try await session.rows(final).map { try RowCoding.stored($0, sealer) } }
    }

    public func changes(_ query: AnchoredQuery) async throws -> AnchoredQueryResult {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        let builder = RecordSQL(dialect: dialect, sealer: sealer)
        let (stored, gone, current) = try await changes(added: builder.added(query), RowCoding.stored, deleted: builder.deleted(query), RowCoding.deleted)
        return AnchoredQueryMerge.merge(added: stored, deleted: gone, limit: query.limit, current: current)
    }

    /// Rows added and deleted after an anchor, and the current anchor, read in one snapshot so
    /// that they agree.
    func changes<Added: Sendable, Deleted: Sendable>(
        added: SQLStatement, _ readAdded: @escaping @Sendable (SQLRow, any RecordSealer) throws -> Added,
        deleted: SQLStatement, _ readDeleted: @escaping @Sendable (SQLRow, any RecordSealer) throws -> Deleted
    ) async throws -> ([Added], [Deleted], QueryAnchor) {
        let sealer = self.sealer
        let dialect = self.dialect
        return try await snapshot { session in
            let current = try await Self.currentAnchor(session, dialect)
            let stored = try await session.rows(added).map { try readAdded($0, sealer) }
            let gone = try await session.rows(deleted).map { try readDeleted($0, sealer) }
            return (stored, gone, QueryAnchor(rawValue: current))
        }
    }

    public func currentAnchor() async throws -> QueryAnchor {
        let dialect = self.dialect
        return try await read { session in QueryAnchor(rawValue: try await Self.currentAnchor(session, dialect)) }
    }

    public func changeSummary(since anchor: QueryAnchor) async throws -> StoreChange {
        var q = sql()
        let after = q.bind(anchor.rawValue)
        let parts = [
            ("c", "clinical_type", "resource", " AND clinical_type IS NOT NULL"), ("c", "clinical_type", "tombstone", ""),
            ("q", "quantity_type", "quantity_sample", ""), ("q", "quantity_type", "quantity_sample_tombstone", ""),
        ]
        let scope = q.scope()
        q += parts.map { "SELECT '\($0.0)', \($0.1) FROM \($0.2) WHERE \(scope) AND anchor > \(after)\($0.3)" }.joined(separator: " UNION ")
        let dialect = self.dialect
        let final = q
        return try await snapshot { session in
            let current = try await Self.currentAnchor(session, dialect)
            var types = Set<ClinicalType>()
            var sampleTypes = Set<QuantityType>()
            for row in try await session.rows(final) {
                let name = try row.string(1)
                if try row.string(0) == "c" {
                    ClinicalType(rawValue: name).map { _ = types.insert($0) }
                } else {
                    QuantityType(rawValue: name).map { _ = sampleTypes.insert($0) }
                }
            }
            return StoreChange(types: types, sampleTypes: sampleTypes, anchor: QueryAnchor(rawValue: current))
        }
    }
}
