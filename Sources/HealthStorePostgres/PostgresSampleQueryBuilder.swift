import Foundation
import HealthStoreCore

/// Turns sample query values into SQL over the `quantity_sample` tables, for one person (`$1`).
struct PostgresSampleQueryBuilder {
    let person: String
    let sealer: any RecordSealer

    static let selectColumns = """
        SELECT q.id, s.identifier, s.name, q.quantity_type, q.sample_uuid, q.value, q.unit, q.start_date, q.end_date,
        q.device, q.metadata, q.signature_status, q.added_date, q.anchor
        FROM quantity_sample q JOIN source s ON s.person_id = q.person_id AND s.id = q.source_id
        """

    func select(_ q: QuantitySampleQuery) -> PGQuery {
        var sql = filtered(Self.selectColumns, type: q.type, predicate: q.predicate)
        let dir = q.sort.ascending ? "ASC" : "DESC"
        switch q.sort.key {
        case .start: sql += " ORDER BY q.start_date \(dir), q.id \(dir)"
        case .added: sql += " ORDER BY q.added_date \(dir), q.id \(dir)"
        }
        if let limit = q.limit { sql += " LIMIT " + sql.bind(limit) }
        return sql
    }

    /// The rows a deletion removes, as the `WHERE` of the samples it selects.
    func deletion(type: QuantityType?, predicate: SamplePredicate?, into sql: inout PGQuery) {
        where_(type: type, predicate: predicate, into: &sql)
    }

    func added(_ q: AnchoredSampleQuery) -> PGQuery {
        var sql = filtered(Self.selectColumns, type: q.type, predicate: q.predicate)
        sql += " AND q.anchor > " + sql.bind(q.anchor?.rawValue ?? 0) + " ORDER BY q.anchor"
        if let limit = q.limit { sql += " LIMIT " + sql.bind(limit) }
        return sql
    }

    func deleted(_ q: AnchoredSampleQuery) -> PGQuery {
        var sql = start("""
            SELECT t.anchor, s.identifier, t.quantity_type, t.sample_uuid, t.deleted_date
            FROM quantity_sample_tombstone t JOIN source s ON s.person_id = t.person_id AND s.id = t.source_id
            WHERE t.person_id = $1 AND t.anchor > 
            """)
        sql += sql.bind(q.anchor?.rawValue ?? 0)
        if let type = q.type { sql += " AND t.quantity_type = " + sql.bind(type.rawValue) }
        for p in q.predicate?.conjuncts ?? [] {
            switch p {
            case .source(let s):
                sql += " AND s.identity = " + sql.bind(ConsentCoding.sourceIdentity(s, sealer))
            case .uuids(let uuids):
                sql += " AND t.identity IN (" + sql.list(uuids.map { SampleCoding.identity($0, sealer) }) + ")"
            case .visible(let windows):
                PostgresQueryBuilder.visibility(windows, type: "t.quantity_type", added: "t.added_anchor", into: &sql)
            case .startDate, .addedDate, .and:
                // Deletions have no dates to filter on; `and` is flattened by conjuncts.
                break
            }
        }
        sql += " ORDER BY t.anchor"
        if let limit = q.limit { sql += " LIMIT " + sql.bind(limit) }
        return sql
    }

    private func start(_ head: String) -> PGQuery {
        var q = PGQuery()
        _ = q.bind(person)
        q += head
        return q
    }

    private func filtered(_ head: String, type: QuantityType?, predicate: SamplePredicate?) -> PGQuery {
        var sql = start(head)
        where_(type: type, predicate: predicate, into: &sql)
        return sql
    }

    /// ` WHERE q.person_id = $1 AND …` for a type and predicate.
    private func where_(type: QuantityType?, predicate: SamplePredicate?, into sql: inout PGQuery) {
        sql += " WHERE q.person_id = $1"
        if let type { sql += " AND q.quantity_type = " + sql.bind(type.rawValue) }
        for p in predicate?.conjuncts ?? [] {
            switch p {
            case .source(let s):
                sql += " AND q.source_id = (SELECT id FROM source WHERE person_id = $1 AND identity = " + sql.bind(ConsentCoding.sourceIdentity(s, sealer)) + ")"
            case .startDate(let from, let to):
                if let from { sql += " AND q.start_date >= " + sql.bind(from.timeIntervalSince1970) }
                if let to { sql += " AND q.start_date < " + sql.bind(to.timeIntervalSince1970) }
            case .addedDate(let from, let to):
                if let from { sql += " AND q.added_date >= " + sql.bind(from.timeIntervalSince1970) }
                if let to { sql += " AND q.added_date < " + sql.bind(to.timeIntervalSince1970) }
            case .uuids(let uuids):
                sql += " AND q.identity IN (" + sql.list(uuids.map { SampleCoding.identity($0, sealer) }) + ")"
            case .visible(let windows):
                // A sample's anchor is the anchor it was saved at: samples are never updated.
                PostgresQueryBuilder.visibility(windows, type: "q.quantity_type", added: "q.anchor", into: &sql)
            case .and:
                break  // flattened by conjuncts
            }
        }
    }
}
