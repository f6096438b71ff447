import ClinicalRecords
import FHIR
import Foundation
import GRDB
import Testing
import TestSupport

@testable import HealthStoreCore
@testable import HealthStoreSQLite

/// A FHIR-style search of one category with date bounds (a new one each time, so no cache
/// answers it) counts and pages in SQL through the category indexes: the same answers as the
/// dates' spans say, whichever plan reads them, and on SQLite plans that read only the page's
/// rows from the table.
@Suite struct CategorySearchIndexTests {
    /// 160 lab results at every precision a clinical date has, over 2010–2019, and four vital
    /// signs (another category) on the same dates.
    static let texts: [String] = (0..<160).map { i in
        let year = 2010 + i % 10, month = 1 + i % 12, day = 1 + i % 28
        switch i % 4 {
        case 0: return String(format: "%04d", year)
        case 1: return String(format: "%04d-%02d", year, month)
        case 2: return String(format: "%04d-%02d-%02d", year, month, day)
        default: return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month, day, i % 24, i % 60, (i * 7) % 60)
        }
    }

    static func seeded(_ engine: StoreEngine) async throws -> StoreFixture {
        try await seed(try await StoreFixture(engine))
    }

    static func seed(_ f: StoreFixture) async throws -> StoreFixture {
        var resources = texts.enumerated().map { i, date in Make.observation("lab-\(i)", date: date) }
        resources += texts.prefix(4).enumerated().map { i, date in Make.observation("vital-\(i)", loinc: "8867-4", date: date, category: "vital-signs") }
        try await f.importJSON("labs.json", Make.bundle(resources))
        return f
    }

    /// Whether a date's span `[start, end)` meets a bound, as FHIR's date search defines it.
    static func holds(_ bound: DateCondition.Bound, _ text: String) -> Bool {
        let span = FHIRDate(text)!.interval
        switch bound {
        case .startsBefore(let x): return span.start < x
        case .startsAtOrAfter(let x): return span.start >= x
        case .endsAfter(let x): return span.end > x
        case .endsAtOrBefore(let x): return span.end <= x
        }
    }

    static func at(_ text: String) -> Date { FHIRDate(text)!.date }

    /// Bounds at the edges of years, months, days and seconds, alone, OR-ed and AND-ed.
    static let searches: [[DateCondition]] = [
        [DateCondition(.endsAfter(at("2015-01-01T00:00:00Z")))],
        [DateCondition(.endsAfter(at("2014-12-31T23:59:59Z")))],
        [DateCondition(.endsAfter(at("2016-06-15T12:30:00Z")))],
        [DateCondition(.startsAtOrAfter(at("2013-03-01T00:00:00Z")))],
        [DateCondition(.startsBefore(at("2012-07-01T00:00:00Z")))],
        [DateCondition(.endsAtOrBefore(at("2017-01-01T00:00:00Z")))],
        [DateCondition(.endsAtOrBefore(at("2011-05-03T10:00:00Z")))],
        [DateCondition(anyOf: [.endsAfter(at("2018-01-01T00:00:00Z")), .startsBefore(at("2011-01-01T00:00:00Z"))])],
        [DateCondition(anyOf: [.endsAfter(at("2018-01-01T00:00:00Z")), .startsAtOrAfter(at("2012-02-01T00:00:00Z"))])],
        [DateCondition(.endsAfter(at("2012-01-01T00:00:00Z"))), DateCondition(.startsBefore(at("2013-06-01T00:00:00Z")))],
        [DateCondition(.endsAfter(at("2030-01-01T00:00:00Z")))],
    ]

    @Test(arguments: StoreEngine.all)
    func countsAndPagesMatchTheDatesSpans(engine: StoreEngine) async throws {
        let f = try await Self.seeded(engine)
        let windows = [TypeWindow(ConsentCategory.clinical(.labResult), addedThrough: nil)]
        let ordered = Self.texts.enumerated().map { ("lab-\($0.offset)", $0.element) }
        for conditions in Self.searches {
            let expected = ordered.filter { _, text in conditions.allSatisfy { c in c.anyOf.contains { Self.holds($0, text) } } }.map(\.0)
            var query = ResourceQuery(resourceTypes: [FHIRResourceType("Observation")], release: .r4, clinicalDate: conditions)
            let all = try await f.store.resources(query, visible: windows, countingTotal: true)
            #expect(all.total == expected.count, "\(conditions)")
            #expect(all.resources.map(\.stored.resource.identifier) == expected, "\(conditions)")
            // Pages of 20 in served order, whichever index reads them.
            query.limit = 20
            for offset in stride(from: 0, to: max(expected.count, 1), by: 20) {
                query.offset = offset
                let page = try await f.store.resources(query, visible: windows, countingTotal: true)
                #expect(page.total == expected.count)
                #expect(page.resources.map(\.stored.resource.identifier) == Array(expected.dropFirst(offset).prefix(20)), "\(conditions) at \(offset)")
            }
        }
    }

    @Test func onSQLiteTheCountAndThePageReadTheCategoryIndexes() async throws {
        let f = try await Self.seed(try await StoreFixture())
        let windows = [TypeWindow(ConsentCategory.clinical(.labResult), addedThrough: nil)]
        let query = ResourceQuery(
            resourceTypes: [FHIRResourceType("Observation")], release: .r4, clinicalDate: [DateCondition(.endsAfter(Self.at("2012-03-04T00:00:00Z")))], limit: 20)
        let sql = ResourceSQL(dialect: .sqlite)
        let db = try DatabaseQueue(path: f.dir.path("store.sqlite"))
        defer { try? db.close() }
        func plan(_ statement: SQLStatement) throws -> String {
            let arguments = StatementArguments(statement.values.map { value -> DatabaseValue in
                switch value {
                case .int(let v): return v.databaseValue
                case .double(let v): return v.databaseValue
                case .text(let v): return v.databaseValue
                case .blob(let v): return v.databaseValue
                }
            })
            return try db.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.text, arguments: arguments).map { $0["detail"] as String }.joined(separator: " | ")
            }
        }
        let count = try plan(sql.count(query, visible: windows))
        #expect(count.contains("COVERING INDEX resource_by_category_clinical") && count.contains("clinical_date>"), "\(count)")
        // Many matches: walk the category in served order, stopping after the page.
        let many = try plan(sql.select(query, visible: windows, matching: 100))
        #expect(many.contains("INDEX resource_by_category_page") && !many.contains("TEMP B-TREE"), "\(many)")
        // Few: seek them by date and sort them.
        let few = try plan(sql.select(query, visible: windows, matching: 3))
        #expect(!few.contains("resource_by_category_page"), "\(few)")
    }
}
