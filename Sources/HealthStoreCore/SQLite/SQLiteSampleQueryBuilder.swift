import Foundation
import GRDB

/// Turns sample query values into SQL over the `quantity_sample` tables.
struct SQLiteSampleQueryBuilder {
    typealias SQL = SQLiteQueryBuilder.SQL

    let sealer: any RecordSealer

    func select(_ q: QuantitySampleQuery) -> SQL {
        var sql = filtered(SQLiteSampleCoding.selectColumns, type: q.type, predicate: q.predicate)
        let dir = q.sort.ascending ? "ASC" : "DESC"
        switch q.sort.key {
        case .start: sql.text += " ORDER BY q.start_date \(dir), q.id \(dir)"
        case .added: sql.text += " ORDER BY q.added_date \(dir), q.id \(dir)"
        }
        if let limit = q.limit {
            sql.text += " LIMIT ?"
            sql.arguments += [limit]
        }
        return sql
    }

    /// The rows a deletion removes: id, identity, source id, type, sealed UUID.
    func forDeletion(type: QuantityType?, predicate: SamplePredicate?) -> SQL {
        var sql = filtered(
            "SELECT q.id, q.identity, q.source_id, q.quantity_type, q.sample_uuid, q.anchor FROM quantity_sample q", type: type, predicate: predicate)
        sql.text += " ORDER BY q.id"
        return sql
    }

    func added(_ q: AnchoredSampleQuery) -> SQL {
        var sql = filtered(SQLiteSampleCoding.selectColumns, type: q.type, predicate: q.predicate)
        sql.text += " AND q.anchor > ? ORDER BY q.anchor"
        sql.arguments += [q.anchor?.rawValue ?? 0]
        if let limit = q.limit {
            sql.text += " LIMIT ?"
            sql.arguments += [limit]
        }
        return sql
    }

    func deleted(_ q: AnchoredSampleQuery) -> SQL {
        var text = """
            SELECT t.anchor, s.identifier, t.quantity_type, t.sample_uuid, t.deleted_date
            FROM quantity_sample_tombstone t JOIN source s ON s.id = t.source_id WHERE t.anchor > ?
            """
        var args: StatementArguments = [q.anchor?.rawValue ?? 0]
        if let type = q.type {
            text += " AND t.quantity_type = ?"
            args += [type.rawValue]
        }
        for p in q.predicate?.conjuncts ?? [] {
            switch p {
            case .source(let s):
                text += " AND s.identity = ?"
                args += [SQLiteSchema.sourceIdentity(s, sealer)]
            case .uuids(let uuids):
                text += " AND t.identity IN (\(placeholders(uuids.count)))"
                for uuid in uuids { args += [SQLiteSampleCoding.identity(uuid, sealer)] }
            case .visible(let windows):
                SQLiteQueryBuilder.visibility(windows, type: "t.quantity_type", added: "t.added_anchor", into: &text, &args)
            case .startDate, .addedDate, .and:
                // Deletions have no dates to filter on; `and` is flattened by conjuncts.
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

    private func filtered(_ head: String, type: QuantityType?, predicate: SamplePredicate?) -> SQL {
        var text = head + " WHERE 1"
        var args = StatementArguments()
        if let type {
            text += " AND q.quantity_type = ?"
            args += [type.rawValue]
        }
        for p in predicate?.conjuncts ?? [] {
            switch p {
            case .source(let s):
                text += " AND q.source_id = (SELECT id FROM source WHERE identity = ?)"
                args += [SQLiteSchema.sourceIdentity(s, sealer)]
            case .startDate(let from, let to):
                if let from { text += " AND q.start_date >= ?"; args += [from.timeIntervalSince1970] }
                if let to { text += " AND q.start_date < ?"; args += [to.timeIntervalSince1970] }
            case .addedDate(let from, let to):
                if let from { text += " AND q.added_date >= ?"; args += [from.timeIntervalSince1970] }
                if let to { text += " AND q.added_date < ?"; args += [to.timeIntervalSince1970] }
            case .uuids(let uuids):
                text += " AND q.identity IN (\(placeholders(uuids.count)))"
                for uuid in uuids { args += [SQLiteSampleCoding.identity(uuid, sealer)] }
            case .visible(let windows):
                // A sample's anchor is the anchor it was saved at: samples are never updated.
                SQLiteQueryBuilder.visibility(windows, type: "q.quantity_type", added: "q.anchor", into: &text, &args)
            case .and:
                break  // flattened by conjuncts
            }
        }
        return SQL(text: text, arguments: args)
    }

    /// `?, ?, …` for `n` values; `NULL` (matching nothing) for none.
    private func placeholders(_ n: Int) -> String {
        n == 0 ? "NULL" : Array(repeating: "?", count: n).joined(separator: ", ")
    }
}
