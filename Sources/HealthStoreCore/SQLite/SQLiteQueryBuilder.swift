import ClinicalRecords
import FHIR
import GRDB

/// Turns query values into SQL over the SQLite schema.
struct SQLiteQueryBuilder {
    struct SQL {
        var text: String
        var arguments: StatementArguments
    }

    let sealer: any RecordSealer

    func select(_ q: RecordQuery) throws -> SQL {
        var sql = try filtered(SQLiteRowDecoder.selectColumns, type: q.type, predicate: q.predicate)
        let dir = q.sort.ascending ? "ASC" : "DESC"
        switch q.sort.key {
        case .added: sql.text += " ORDER BY r.added_date \(dir), r.id \(dir)"
        case .clinical: sql.text += " ORDER BY r.clinical_date \(dir), r.id \(dir)"
        }
        if let limit = q.limit {
            sql.text += " LIMIT ?"
            sql.arguments += [limit]
        }
        return sql
    }

    func count(_ q: RecordQuery) throws -> SQL {
        try filtered("SELECT COUNT(*) FROM resource r JOIN source s ON s.id = r.source_id", type: q.type, predicate: q.predicate)
    }

    func added(_ q: AnchoredQuery) throws -> SQL {
        var sql = try filtered(SQLiteRowDecoder.selectColumns, type: q.type, predicate: q.predicate)
        sql.text += " AND r.anchor > ? ORDER BY r.anchor"
        sql.arguments += [q.anchor?.rawValue ?? 0]
        if let limit = q.limit {
            sql.text += " LIMIT ?"
            sql.arguments += [limit]
        }
        return sql
    }

    func deleted(_ q: AnchoredQuery) throws -> SQL {
        var text = """
            SELECT t.anchor, s.identifier, s.name, t.resource_type, t.clinical_type, t.resource_id, t.deleted_date
            FROM tombstone t JOIN source s ON s.id = t.source_id WHERE t.anchor > ?
            """
        var args: StatementArguments = [q.anchor?.rawValue ?? 0]
        if let type = q.type {
            text += " AND t.clinical_type = ?"
            args += [type.rawValue]
        }
        for p in q.predicate?.conjuncts ?? [] {
            switch p {
            case .fhirResourceType(let t):
                text += " AND t.resource_type = ?"
                args += [t.rawValue]
            case .identity(let source, let type, let id):
                text += " AND t.identity = ?"
                args += [sealer.identityKey([source, type.rawValue, id])]
            case .source(let s):
                text += " AND s.identity = ?"
                args += [SQLiteSchema.sourceIdentity(s, sealer)]
            case .visible(let windows):
                Self.visibility(windows, type: "t.clinical_type", added: "t.added_anchor", into: &text, &args)
            case .addedDate, .clinicalDate, .and:
                // Deletions have no clinical or added date to filter on.
                break
            }
        }
        text += " ORDER BY t.anchor"
        if let limit = q.limit {
            text += " LIMIT ?"
            args += [limit]
        }
        return SQL(text: text, arguments: args)
    }

    private func filtered(_ head: String, type: ClinicalType?, predicate: RecordPredicate?) throws -> SQL {
        var text = head + " WHERE r.clinical_type "
        var args = StatementArguments()
        if let type {
            text += "= ?"
            args += [type.rawValue]
        } else {
            text += "IS NOT NULL"
        }
        for p in predicate?.conjuncts ?? [] {
            switch p {
            case .fhirResourceType(let t):
                text += " AND r.resource_type = ?"
                args += [t.rawValue]
            case .identity(let source, let t, let id):
                text += " AND r.identity = ?"
                args += [sealer.identityKey([source, t.rawValue, id])]
            case .source(let s):
                // A subquery (not the join) lets SQLite use the (source, type, date) index.
                text += " AND r.source_id = (SELECT id FROM source WHERE identity = ?)"
                args += [SQLiteSchema.sourceIdentity(s, sealer)]
            case .addedDate(let from, let to):
                if let from { text += " AND r.added_date >= ?"; args += [from.timeIntervalSince1970] }
                if let to { text += " AND r.added_date < ?"; args += [to.timeIntervalSince1970] }
            case .clinicalDate(let from, let to):
                if let from { text += " AND r.clinical_date >= ?"; args += [from.timeIntervalSince1970] }
                if let to { text += " AND r.clinical_date < ?"; args += [to.timeIntervalSince1970] }
            case .visible(let windows):
                Self.visibility(windows, type: "r.category", added: "r.added_anchor", into: &text, &args)
            case .and:
                break  // flattened by conjuncts
            }
        }
        return SQL(text: text, arguments: args)
    }

    /// `AND (type = ? [AND added <= ?] OR …)` for type windows; `AND 0` for none.
    static func visibility<T: RawRepresentable<String>>(
        _ windows: [TypeWindow<T>], type: String, added: String, into text: inout String, _ args: inout StatementArguments
    ) {
        guard !windows.isEmpty else {
            text += " AND 0"
            return
        }
        let terms = windows.map { w -> String in
            args += [w.type.rawValue]
            guard let through = w.addedThrough else { return "\(type) = ?" }
            args += [through.rawValue]
            return "(\(type) = ? AND \(added) <= ?)"
        }
        text += " AND (" + terms.joined(separator: " OR ") + ")"
    }
}
