import ClinicalRecords
import FHIR
import HealthStoreCore

/// Turns record query values into SQL over the PostgreSQL schema, always for one person
/// (`$1`). Orders match SQLite's: NULL clinical dates first ascending, last descending.
struct PostgresQueryBuilder {
    let person: String
    let sealer: any RecordSealer

    func select(_ q: RecordQuery) -> PGQuery {
        var sql = filtered(PostgresRowDecoder.selectColumns, type: q.type, predicate: q.predicate)
        let dir = q.sort.ascending ? "ASC" : "DESC"
        switch q.sort.key {
        case .added: sql += " ORDER BY r.added_date \(dir), r.id \(dir)"
        case .clinical: sql += " ORDER BY r.clinical_date \(dir) NULLS \(q.sort.ascending ? "FIRST" : "LAST"), r.id \(dir)"
        }
        if let limit = q.limit { sql += " LIMIT " + sql.bind(limit) }
        return sql
    }

    func count(_ q: RecordQuery) -> PGQuery {
        filtered("SELECT COUNT(*) FROM resource r", type: q.type, predicate: q.predicate)
    }

    func added(_ q: AnchoredQuery) -> PGQuery {
        var sql = filtered(PostgresRowDecoder.selectColumns, type: q.type, predicate: q.predicate)
        sql += " AND r.anchor > " + sql.bind(q.anchor?.rawValue ?? 0) + " ORDER BY r.anchor"
        if let limit = q.limit { sql += " LIMIT " + sql.bind(limit) }
        return sql
    }

    func deleted(_ q: AnchoredQuery) -> PGQuery {
        var sql = start(PostgresRowDecoder.tombstoneColumns + " WHERE t.person_id = $1 AND t.anchor > ")
        sql += sql.bind(q.anchor?.rawValue ?? 0)
        if let type = q.type { sql += " AND t.clinical_type = " + sql.bind(type.rawValue) }
        for p in q.predicate?.conjuncts ?? [] {
            switch p {
            case .fhirResourceType(let t):
                sql += " AND t.resource_type = " + sql.bind(t.rawValue)
            case .identity(let source, let type, let id):
                sql += " AND t.identity = " + sql.bind(sealer.identityKey([source, type.rawValue, id]))
            case .source(let s):
                sql += " AND s.identity = " + sql.bind(ConsentCoding.sourceIdentity(s, sealer))
            case .visible(let windows):
                Self.visibility(windows, type: "t.clinical_type", added: "t.added_anchor", into: &sql)
            case .addedDate, .clinicalDate, .and:
                // Deletions have no clinical or added date to filter on.
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

    private func filtered(_ head: String, type: ClinicalType?, predicate: RecordPredicate?) -> PGQuery {
        var sql = start(head + " WHERE r.person_id = $1 AND r.clinical_type ")
        if let type { sql += "= " + sql.bind(type.rawValue) } else { sql += "IS NOT NULL" }
        for p in predicate?.conjuncts ?? [] {
            switch p {
            case .fhirResourceType(let t):
                sql += " AND r.resource_type = " + sql.bind(t.rawValue)
            case .identity(let source, let t, let id):
                sql += " AND r.identity = " + sql.bind(sealer.identityKey([source, t.rawValue, id]))
            case .source(let s):
                sql += " AND r.source_id = (SELECT id FROM source WHERE person_id = $1 AND identity = " + sql.bind(ConsentCoding.sourceIdentity(s, sealer)) + ")"
            case .addedDate(let from, let to):
                if let from { sql += " AND r.added_date >= " + sql.bind(from.timeIntervalSince1970) }
                if let to { sql += " AND r.added_date < " + sql.bind(to.timeIntervalSince1970) }
            case .clinicalDate(let from, let to):
                if let from { sql += " AND r.clinical_date >= " + sql.bind(from.timeIntervalSince1970) }
                if let to { sql += " AND r.clinical_date < " + sql.bind(to.timeIntervalSince1970) }
            case .visible(let windows):
                // A record's id is the anchor it was first added at.
                Self.visibility(windows, type: "r.category", added: "r.id", into: &sql)
            case .and:
                break  // flattened by conjuncts
            }
        }
        return sql
    }

    /// `AND (type = $a [AND added <= $b] OR …)` for type windows; `AND FALSE` for none.
    static func visibility<T: RawRepresentable<String>>(_ windows: [TypeWindow<T>], type: String, added: String, into sql: inout PGQuery) {
        guard !windows.isEmpty else {
            sql += " AND FALSE"
            return
        }
        let terms = windows.map { w -> String in
            let t = sql.bind(w.type.rawValue)
            guard let through = w.addedThrough else { return "\(type) = \(t)" }
            return "(\(type) = \(t) AND \(added) <= \(sql.bind(through.rawValue)))"
        }
        sql += " AND (" + terms.joined(separator: " OR ") + ")"
    }
}
