import ClinicalRecords
import FHIR

/// Turns record queries into SQL over the resource and tombstone tables. NULL clinical dates
/// come first ascending and last descending, on every engine.
struct RecordSQL {
    let dialect: SQLDialect
    let sealer: any RecordSealer

    /// The columns ``RowCoding/stored(_:_:)`` reads, from `resource r` joined to its source,
    /// and with `keyed` the identity after them (``RowCoding/keyed(_:_:)``).
    /// `index` names the index to read `resource` through (``SQLDialect/namesIndexes``);
    /// `also` writes more columns after those (each with its leading comma).
    static func selectResources(
        into q: inout SQLStatement, keyed: Bool = false, index: String? = nil, also: ((inout SQLStatement) -> Void)? = nil
    ) {
        q += """
            SELECT r.id, s.identifier, s.name, r.resource_type, r.clinical_type, r.resource_id, r.display_name, r.fhir_version,
            r.source_url, r.clinical_date_text, r.added_date, r.anchor, r.data, r.category\(keyed ? ", r.identity" : "")
            """
        also?(&q)
        q += " FROM resource r\(index.map { " INDEXED BY " + $0 } ?? "") JOIN source s ON \(q.sameScope("s", "r"))s.id = r.source_id"
    }

    func select(_ query: RecordQuery) -> SQLStatement {
        var q = SQLStatement(dialect)
        Self.selectResources(into: &q)
        filter(type: query.type, predicate: query.predicate, into: &q)
        switch query.sort.key {
        case .added: Self.page(by: "r.added_date", "r", ascending: query.sort.ascending, limit: query.limit, into: &q)
        case .clinical: Self.page(by: "r.clinical_date", "r", ascending: query.sort.ascending, nullable: true, limit: query.limit, into: &q)
        }
        return q
    }

    func count(_ query: RecordQuery) -> SQLStatement {
        var q = SQLStatement(dialect, "SELECT COUNT(*) FROM resource r")
        filter(type: query.type, predicate: query.predicate, into: &q)
        return q
    }

    /// `clinical_type, COUNT(*)` per clinical type.
    func countsByType() -> SQLStatement {
        var q = SQLStatement(dialect, "SELECT r.clinical_type, COUNT(*) FROM resource r WHERE ")
        q += q.scope("r") + " AND r.clinical_type IS NOT NULL GROUP BY r.clinical_type"
        return q
    }

    /// The newest `limit` records of each clinical type (clinical date descending, undated
    /// last), ranked inside the database so only the page's rows are read and opened.
    func latest(perType limit: Int) -> SQLStatement {
        var q = SQLStatement(dialect)
        Self.selectResources(into: &q)
        q += " WHERE " + q.scope("r") + " AND r.id IN (SELECT ranked.id FROM (SELECT x.id, ROW_NUMBER() OVER (PARTITION BY x.clinical_type"
        q += " ORDER BY x.clinical_date DESC NULLS LAST, x.id DESC) AS n FROM resource x WHERE " + q.scope("x")
        q += " AND x.clinical_type IS NOT NULL) ranked WHERE ranked.n <= " + q.bind(limit) + ")"
        q += " ORDER BY r.clinical_type, r.clinical_date DESC NULLS LAST, r.id DESC"
        return q
    }

    /// The records with these identities.
    func identified(_ identities: [RecordIdentity]) -> SQLStatement {
        var q = SQLStatement(dialect)
        Self.selectResources(into: &q)
        q += " WHERE " + q.scope("r") + " AND r.clinical_type IS NOT NULL AND r.identity IN ("
        var placeholders: [String] = []
        for i in identities { placeholders.append(q.bind(sealer.identityKey([i.source, i.resourceType.rawValue, i.identifier]))) }
        q += placeholders.joined(separator: ", ") + ")"
        return q
    }

    func added(_ query: AnchoredQuery) -> SQLStatement {
        var q = SQLStatement(dialect)
        Self.selectResources(into: &q)
        filter(type: query.type, predicate: query.predicate, into: &q)
        Self.after(query.anchor, "r", limit: query.limit, into: &q)
        return q
    }

    func deleted(_ query: AnchoredQuery) -> SQLStatement {
        var q = SQLStatement(dialect)
        q += """
            SELECT t.anchor, s.identifier, s.name, t.resource_type, t.clinical_type, t.resource_id, t.deleted_date
            FROM tombstone t JOIN source s ON \(q.sameScope("s", "t"))s.id = t.source_id
            WHERE \(q.scope("t"))
            """
        if let type = query.type { q += " AND t.clinical_type = " + q.bind(type.rawValue) }
        for p in query.predicate?.conjuncts ?? [] {
            switch p {
            case .fhirResourceType(let t):
                q += " AND t.resource_type = " + q.bind(t.rawValue)
            case .identity(let source, let type, let id):
                q += " AND t.identity = " + q.bind(sealer.identityKey([source, type.rawValue, id]))
            case .source(let s):
                q += " AND s.identity = " + q.bind(ConsentCoding.sourceIdentity(s, sealer))
            case .visible(let windows):
                Self.visibility(windows, type: "t.clinical_type", added: "t.added_anchor", dated: "t.dated", identity: "t.identity", into: &q)
            case .addedDate, .clinicalDate, .and:
                // Deletions have no clinical or added date to filter on.
                break
            }
        }
        Self.after(query.anchor, "t", limit: query.limit, into: &q)
        return q
    }

    private func filter(type: ClinicalType?, predicate: RecordPredicate?, into q: inout SQLStatement) {
        q += " WHERE " + q.scope("r") + " AND r.clinical_type "
        if let type { q += "= " + q.bind(type.rawValue) } else { q += "IS NOT NULL" }
        for p in predicate?.conjuncts ?? [] {
            switch p {
            case .fhirResourceType(let t):
                q += " AND r.resource_type = " + q.bind(t.rawValue)
            case .identity(let source, let t, let id):
                q += " AND r.identity = " + q.bind(sealer.identityKey([source, t.rawValue, id]))
            case .source(let s):
                q += " AND r.source_id = (SELECT id FROM source WHERE " + q.scope() + " AND identity = "
                q += q.bind(ConsentCoding.sourceIdentity(s, sealer)) + ")"
            case .addedDate(let from, let to):
                Self.range("r.added_date", from: from?.timeIntervalSince1970, to: to?.timeIntervalSince1970, into: &q)
            case .clinicalDate(let from, let to):
                Self.range("r.clinical_date", from: from?.timeIntervalSince1970, to: to?.timeIntervalSince1970, into: &q)
            case .visible(let windows):
                Self.visibility(windows, type: "r.category", added: "r.\(dialect.resourceAddedColumn)", dated: Self.resourceDate("r"), identity: "r.identity", into: &q)
            case .and:
                break  // flattened by conjuncts
            }
        }
    }

    /// ` ORDER BY column, alias.id` in one direction, then the limit. NULLs (of a nullable
    /// column) come first ascending and last descending, on every engine.
    static func page(by column: String, _ alias: String, ascending: Bool, nullable: Bool = false, limit: Int?, into q: inout SQLStatement) {
        let dir = ascending ? "ASC" : "DESC"
        q += " ORDER BY \(column) \(dir)" + (nullable ? " NULLS \(ascending ? "FIRST" : "LAST")" : "") + ", \(alias).id \(dir)"
        if let limit { q += " LIMIT " + q.bind(limit) }
    }

    /// ` AND alias.anchor > anchor ORDER BY alias.anchor`, then the limit: changes in anchor order.
    static func after(_ anchor: QueryAnchor?, _ alias: String, limit: Int?, into q: inout SQLStatement) {
        q += " AND \(alias).anchor > " + q.bind(anchor?.rawValue ?? 0) + " ORDER BY \(alias).anchor"
        if let limit { q += " LIMIT " + q.bind(limit) }
    }

    /// `AND column >= from AND column < to`, for the bounds given.
    static func range(_ column: String, from: Double?, to: Double?, into q: inout SQLStatement) {
        if let from { q += " AND \(column) >= " + q.bind(from) }
        if let to { q += " AND \(column) < " + q.bind(to) }
    }

    /// `AND (type = a [AND added <= b] [AND dated >= c] OR …)` for type windows; `AND FALSE`
    /// for none. This is the whole of consent in SQL: a row outside every window is never read.
    /// `dated` is the row's date for history windows: a NULL there (a tombstone older than
    /// them) is outside every window that has a start.
    /// `identity` is the row's identity key column, for windows limited to some records (none
    /// for samples: a window limited that way then shows nothing).
    static func visibility<T: RawRepresentable<String>>(
        _ windows: [TypeWindow<T>], type: String, added: String, dated: String, identity: String? = nil, into q: inout SQLStatement
    ) {
        guard !windows.isEmpty else {
            q += " AND FALSE"
            return
        }
        var terms: [String] = []
        for w in windows {
            var term = "\(type) = " + q.bind(w.type.rawValue)
            if let through = w.addedThrough { term += " AND \(added) <= " + q.bind(through.rawValue) }
            if let since = w.since { term += " AND \(dated) >= " + q.bind(since.timeIntervalSince1970) }
            if let only = w.only {
                if let identity, !only.isEmpty { term += " AND \(identity) IN (" + q.list(only) + ")" } else { term += " AND FALSE" }
            }
            terms.append(w.addedThrough == nil && w.since == nil && w.only == nil ? term : "(" + term + ")")
        }
        q += " AND (" + terms.joined(separator: " OR ") + ")"
    }

    /// A resource's date for history windows: its clinical date, else the date it was added.
    static func resourceDate(_ alias: String) -> String { "COALESCE(\(alias).clinical_date, \(alias).added_date)" }
}
