import ClinicalRecords
import FHIR
import Foundation

/// Turns ``ResourceQuery``s into SQL over the resource table: one statement for a page (with
/// the resource's identity as a 15th column, after those ``RowCoding/stored(_:_:)`` reads) and
/// one for the count, sharing one filter.
struct ResourceSQL {
    let dialect: SQLDialect

    /// The page; `matching` is the count read just before in the same snapshot, when there
    /// is one.
    func select(_ query: ResourceQuery, visible windows: [TypeWindow<ConsentCategory>]?, matching: Int? = nil) -> SQLStatement {
        var q = SQLStatement(dialect)
        RecordSQL.selectResources(into: &q, keyed: true, index: index(query, windows, matching: matching))
        page(query, windows, into: &q)
        return q
    }

    /// The page with two more columns on every row, both read in the statement's one snapshot:
    /// the store's anchor (16th) and, with `counting`, how many resources match (17th; else
    /// NULL). An empty page has no row to carry them: read it again with ``select(_:visible:matching:)``.
    ///
    /// The page's ids come first, from a subquery that an index answers alone (the category
    /// indexes hold every column the filter reads); only those rows are then read from the
    /// table. Read in one step, a plan that walks the index of served order fetches the row of
    /// every entry it tests, and PostgreSQL's generic plan for a prepared statement, which
    /// cannot see how many rows a date bound keeps, seeks the dates, fetches every match's row
    /// and sorts them: four times the cost of the count for a page of 20 out of 850.
    func selectWithAnchor(_ query: ResourceQuery, visible windows: [TypeWindow<ConsentCategory>]?, counting: Bool) -> SQLStatement {
        var q = SQLStatement(dialect)
        RecordSQL.selectResources(into: &q, keyed: true) { q in
            let counter = dialect.anchorCounter
            q += ", (SELECT \(counter.column) FROM \(counter.table) WHERE " + q.singleton + ")"
            if counting {
                q += ", (SELECT COUNT(*) FROM resource r WHERE "
                filter(query, windows, into: &q)
                q += ")"
            } else {
                q += ", NULL"
            }
        }
        q += " WHERE " + q.scope("r") + " AND r.id IN (SELECT r.id FROM resource r"
        page(query, windows, into: &q)
        q += ")"
        order(query, limit: nil, into: &q)
        return q
    }

    /// ` WHERE` the filter, then the order, limit and offset.
    private func page(_ query: ResourceQuery, _ windows: [TypeWindow<ConsentCategory>]?, into q: inout SQLStatement) {
        q += " WHERE "
        filter(query, windows, into: &q)
        order(query, limit: query.limit ?? (query.offset > 0 ? Int(Int64.max) : nil), into: &q)
        if query.offset > 0 { q += " OFFSET " + q.bind(query.offset) }
    }

    /// ` ORDER BY` the query's order, then the limit.
    private func order(_ query: ResourceQuery, limit: Int?, into q: inout SQLStatement) {
        switch query.sort {
        case nil: RecordSQL.page(by: "r.\(dialect.resourceAddedColumn)", "r", ascending: true, limit: limit, into: &q)
        case let sort? where sort.key == .added: RecordSQL.page(by: "r.added_date", "r", ascending: sort.ascending, limit: limit, into: &q)
        case let sort?: RecordSQL.page(by: "r.clinical_date", "r", ascending: sort.ascending, nullable: true, limit: limit, into: &q)
        }
    }

    func count(_ query: ResourceQuery, visible windows: [TypeWindow<ConsentCategory>]?) -> SQLStatement {
        var q = SQLStatement(dialect, "SELECT COUNT(*) FROM resource r WHERE ")
        filter(query, windows, into: &q)
        return q
    }

    /// The index a page of one category in served order reads, where the dialect names
    /// indexes. Walking that category's `resource_by_category_page` in order stops after the
    /// page's rows, testing the rest of the filter in the index; SQLite's planner, without
    /// statistics, prefers seeking the date index and sorting every match instead (ten times
    /// slower for a page out of hundreds). When few rows match, seeking them and sorting is
    /// the better plan, so the planner chooses then.
    private func index(_ query: ResourceQuery, _ windows: [TypeWindow<ConsentCategory>]?, matching: Int?) -> String? {
        guard dialect.namesIndexes, query.sort == nil, query.keys == nil,
            let windows = Self.windows(query, windows), windows.count == 1
        else { return nil }
        if let matching, matching <= Self.fewMatches { return nil }
        return "resource_by_category_page"
    }

    /// Up to this many matches, a page is read by seeking them (see `index`).
    static let fewMatches = 64

    /// The windows a query reads through: the grants' windows narrowed to the query's
    /// categories, or the categories alone when there are no grants to apply (the person).
    static func windows(_ query: ResourceQuery, _ windows: [TypeWindow<ConsentCategory>]?) -> [TypeWindow<ConsentCategory>]? {
        guard let categories = query.categories else { return windows }
        guard let windows else { return categories.sorted().map { TypeWindow($0, addedThrough: nil) } }
        return windows.filter { categories.contains($0.type) }
    }

    private func filter(_ query: ResourceQuery, _ windows: [TypeWindow<ConsentCategory>]?, into q: inout SQLStatement) {
        let added = "r.\(dialect.resourceAddedColumn)"
        q += q.scope("r")
        if let types = query.resourceTypes {
            q += " AND r.resource_type IN (" + (types.isEmpty ? "NULL" : types.sorted().map { q.bind($0.rawValue) }.joined(separator: ", ")) + ")"
        }
        if !query.excludedResourceTypes.isEmpty {
            q += " AND r.resource_type NOT IN (" + query.excludedResourceTypes.sorted().map { q.bind($0.rawValue) }.joined(separator: ", ") + ")"
        }
        if let release = query.release {
            // The release is read as `substr(fhir_version, 1, 4)`, the expression the category
            // indexes hold, so a count seeks to it instead of testing every row (a LIKE was
            // evaluated row by row). Constants, written into the text, match the index.
            switch release {
            case .r4: q += " AND substr(r.fhir_version, 1, 4) = '4.0.'"
            case .dstu2: q += " AND substr(r.fhir_version, 1, 4) = '1.0.'"
            case .unknown: q += " AND substr(r.fhir_version, 1, 4) NOT IN ('4.0.', '1.0.')"
            }
        }
        if let through = query.addedThrough { q += " AND \(added) <= " + q.bind(through.rawValue) }
        if let keys = query.keys { q += " AND r.identity IN (" + q.list(keys.map(\.bytes)) + ")" }
        for condition in query.clinicalDate { Self.clinical(condition, into: &q) }
        for condition in query.addedDate { Self.instant(condition, column: "r.added_date", into: &q) }
        if let windows = Self.windows(query, windows) {
            RecordSQL.visibility(windows, type: "r.category", added: added, dated: RecordSQL.resourceDate("r"), identity: "r.identity", into: &q)
        }
    }

    /// ` AND (bound OR …)` over an instant column: it covers `[t, t + ε)`, so an end bound
    /// compares as the start does.
    static func instant(_ condition: DateCondition, column: String, into q: inout SQLStatement) {
        let terms = condition.anyOf.map { bound -> String in
            switch bound {
            case .startsBefore(let d), .endsAtOrBefore(let d): return "\(column) < " + q.bind(d.timeIntervalSince1970)
            case .startsAtOrAfter(let d), .endsAfter(let d): return "\(column) >= " + q.bind(d.timeIntervalSince1970)
            }
        }
        q += " AND (" + (terms.isEmpty ? "FALSE" : terms.joined(separator: " OR ")) + ")"
    }

    /// ` AND (bound OR …)` over the clinical date, whose span depends on the precision of its
    /// text: a year or a month ends at the next one (UTC), a day, minute or second after a
    /// fixed span. The start column is compared in every case, so an index on it still helps.
    static func clinical(_ condition: DateCondition, into q: inout SQLStatement) {
        let d = "r.clinical_date", t = "r.clinical_date_text"
        // The bound each term puts on the start from below and from above, when it does.
        var lows: [Double?] = [], highs: [Double?] = []
        let terms = condition.anyOf.map { bound -> String in
            switch bound {
            case .startsBefore(let x):
                lows.append(nil)
                highs.append(x.timeIntervalSince1970)
                return "\(d) < " + q.bind(x.timeIntervalSince1970)
            case .startsAtOrAfter(let x):
                lows.append(x.timeIntervalSince1970)
                highs.append(nil)
                return "\(d) >= " + q.bind(x.timeIntervalSince1970)
            case .endsAfter(let x):
                // end > x ⟺ start ≥ x truncated to the year / month, or start > x − span.
                let f = UTCFloor(x)
                let floor = min(f.year, f.x - 86_400)
                lows.append(floor)
                highs.append(nil)
                var s = "(\(d) >= " + q.bind(floor) + " AND CASE WHEN length(\(t)) = 4 THEN \(d) >= " + q.bind(f.year)
                s += " WHEN length(\(t)) = 7 THEN \(d) >= " + q.bind(f.month) + " WHEN length(\(t)) = 10 THEN \(d) > " + q.bind(f.x - 86_400)
                s += " WHEN substr(\(t), 17, 1) = ':' THEN \(d) > " + q.bind(f.x - 1) + " ELSE \(d) > " + q.bind(f.x - 60) + " END)"
                return s
            case .endsAtOrBefore(let x):
                // end ≤ x ⟺ start < x truncated to the year / month, or start ≤ x − span.
                let f = UTCFloor(x)
                lows.append(nil)
                highs.append(f.x)
                var s = "(\(d) < " + q.bind(f.x) + " AND CASE WHEN length(\(t)) = 4 THEN \(d) < " + q.bind(f.year)
                s += " WHEN length(\(t)) = 7 THEN \(d) < " + q.bind(f.month) + " WHEN length(\(t)) = 10 THEN \(d) <= " + q.bind(f.x - 86_400)
                s += " WHEN substr(\(t), 17, 1) = ':' THEN \(d) <= " + q.bind(f.x - 1) + " ELSE \(d) <= " + q.bind(f.x - 60) + " END)"
                return s
            }
        }
        // Every term bounds the start from one side: that bound, outside the OR, is a range
        // the index on the clinical date seeks to (an OR of bounds is tested row by row).
        if !lows.isEmpty, !lows.contains(nil) { q += " AND \(d) >= " + q.bind(lows.compactMap { $0 }.min()!) }
        if !highs.isEmpty, !highs.contains(nil) { q += " AND \(d) < " + q.bind(highs.compactMap { $0 }.max()!) }
        q += " AND (" + (terms.isEmpty ? "FALSE" : terms.joined(separator: " OR ")) + ")"
    }
}

/// An instant in seconds since 1970 with the starts of its UTC year and month.
private struct UTCFloor {
    let x: Double, year: Double, month: Double

    init(_ date: Date) {
        x = date.timeIntervalSince1970
        // Days stay within ±10^9 (years far beyond any date a search parses) so Int cannot trap.
        let day = FHIRDate.civil(fromDays: Int(max(-1e9, min(1e9, (x / 86_400).rounded(.down)))))
        year = Double(FHIRDate.daysFromCivil(year: day.year, month: 1, day: 1) * 86_400)
        month = Double(FHIRDate.daysFromCivil(year: day.year, month: day.month, day: 1) * 86_400)
    }
}
