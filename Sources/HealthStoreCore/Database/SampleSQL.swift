import Foundation

/// Turns sample queries into SQL over the `quantity_sample` tables.
struct SampleSQL {
    let dialect: SQLDialect
    let sealer: any RecordSealer

    /// The columns ``RowCoding/sample(_:_:)`` reads, from `quantity_sample q` joined to its source.
    static func selectSamples(into q: inout SQLStatement) {
        q += """
            SELECT q.id, s.identifier, s.name, q.quantity_type, q.sample_uuid, q.value, q.unit, q.start_date, q.end_date,
            q.device, q.metadata, q.signature_status, q.added_date, q.anchor
            FROM quantity_sample q JOIN source s ON \(q.sameScope("s", "q"))s.id = q.source_id
            """
    }

    func select(_ query: QuantitySampleQuery) -> SQLStatement {
        var q = SQLStatement(dialect)
        Self.selectSamples(into: &q)
        filter(type: query.type, predicate: query.predicate, into: &q)
        let column = query.sort.key == .start ? "q.start_date" : "q.added_date"
        RecordSQL.page(by: column, "q", ascending: query.sort.ascending, limit: query.limit, into: &q)
        return q
    }

    func added(_ query: AnchoredSampleQuery) -> SQLStatement {
        var q = SQLStatement(dialect)
        Self.selectSamples(into: &q)
        filter(type: query.type, predicate: query.predicate, into: &q)
        RecordSQL.after(query.anchor, "q", limit: query.limit, into: &q)
        return q
    }

    func deleted(_ query: AnchoredSampleQuery) -> SQLStatement {
        var q = SQLStatement(dialect)
        q += """
            SELECT t.anchor, s.identifier, t.quantity_type, t.sample_uuid, t.deleted_date
            FROM quantity_sample_tombstone t JOIN source s ON \(q.sameScope("s", "t"))s.id = t.source_id
            WHERE \(q.scope("t"))
            """
        if let type = query.type { q += " AND t.quantity_type = " + q.bind(type.rawValue) }
        for p in query.predicate?.conjuncts ?? [] {
            switch p {
            case .source(let s):
                q += " AND s.identity = " + q.bind(ConsentCoding.sourceIdentity(s, sealer))
            case .uuids(let uuids):
                q += " AND t.identity IN (" + q.list(uuids.map { SampleCoding.identity($0, sealer) }) + ")"
            case .visible(let windows):
                RecordSQL.visibility(windows, type: "t.quantity_type", added: "t.added_anchor", dated: "t.dated", into: &q)
            case .startDate, .addedDate, .and:
                // Deletions have no dates to filter on; `and` is flattened by conjuncts.
                break
            }
        }
        RecordSQL.after(query.anchor, "t", limit: query.limit, into: &q)
        return q
    }

    /// ` WHERE <person> AND …` for a type and predicate over `quantity_sample q`.
    func filter(type: QuantityType?, predicate: SamplePredicate?, into q: inout SQLStatement) {
        q += " WHERE " + q.scope("q")
        if let type { q += " AND q.quantity_type = " + q.bind(type.rawValue) }
        for p in predicate?.conjuncts ?? [] {
            switch p {
            case .source(let s):
                q += " AND q.source_id = (SELECT id FROM source WHERE " + q.scope() + " AND identity = "
                q += q.bind(ConsentCoding.sourceIdentity(s, sealer)) + ")"
            case .startDate(let from, let to):
                RecordSQL.range("q.start_date", from: from?.timeIntervalSince1970, to: to?.timeIntervalSince1970, into: &q)
            case .addedDate(let from, let to):
                RecordSQL.range("q.added_date", from: from?.timeIntervalSince1970, to: to?.timeIntervalSince1970, into: &q)
            case .uuids(let uuids):
                q += " AND q.identity IN (" + q.list(uuids.map { SampleCoding.identity($0, sealer) }) + ")"
            case .visible(let windows):
                // A sample's anchor is the anchor it was saved at: samples are never updated.
                RecordSQL.visibility(windows, type: "q.quantity_type", added: "q.anchor", dated: "q.start_date", into: &q)
            case .and:
                break  // flattened by conjuncts
            }
        }
    }
}
