import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

/// One record in full (`/record`).
struct RecordPage: PageContent {
    static let template = "record"

    /// A value with its label.
    struct Value: Sendable {
        let label: String
        let hasLabel: Bool
        let text: String
    }

    /// A labelled text (a date, a party).
    struct Labelled: Sendable {
        let label: String
        let text: String
    }

    /// A code and its name.
    struct Code: Sendable {
        let system: String
        let code: String
        let name: String
    }

    /// A record this one refers to, linked when it is stored.
    struct Related: Sendable {
        let label: String
        let name: String
        let value: String
        let link: String
        let linked: Bool
    }

    let title: String
    let name: String
    let type: String
    let resourceType: String
    let values: [Value]
    let hasValues: Bool
    let ranges: [String]
    let hasRanges: Bool
    let flag: String
    let flagged: Bool
    let hasFlag: Bool
    let status: String
    let hasStatus: Bool
    let dates: [Labelled]
    let clinicalDate: String
    let added: String
    let parties: [Labelled]
    let hasParties: Bool
    let source: String
    let sourceID: String
    let codes: [Code]
    let hasCodes: Bool
    let related: [Related]
    let hasRelated: Bool
    let trend: String
    let hasTrend: Bool
    let json: String

    init(_ r: ClinicalRecord, details: RecordDetails, related: [Related]) {
        title = r.displayName
        name = r.displayName
        type = r.clinicalType.title
        resourceType = r.fhirResource.resourceType.rawValue
        values = details.values.map { Value(label: $0.label ?? "", hasLabel: $0.label != nil, text: $0.text) }
        hasValues = !details.values.isEmpty
        ranges = details.ranges.map(\.text)
        hasRanges = !details.ranges.isEmpty
        flag = details.flag?.text ?? ""
        flagged = details.flag?.isFlagged ?? false
        hasFlag = details.flag != nil
        status = details.status ?? ""
        hasStatus = details.status != nil
        dates = details.dates.map { Labelled(label: $0.label, text: $0.text) }
        clinicalDate = PageDates.short(r.clinicalDate)
        added = PageDates.short(r.addedDate)
        parties = details.parties.map { Labelled(label: $0.label, text: $0.text) }
        hasParties = !details.parties.isEmpty
        source = r.source.name
        sourceID = r.source.identifier
        codes = details.codes.map { Code(system: $0.system, code: $0.code, name: $0.name ?? "—") }
        hasCodes = !details.codes.isEmpty
        self.related = related
        hasRelated = !related.isEmpty
        let series = details.quantity != nil ? TrendSeries.key(of: r, details: details) : nil
        trend = series.map { "/trend?key=\(RecordPageRoutes.encode($0))" } ?? ""
        hasTrend = series != nil
        json = (try? r.fhirResource.json()).map { JSONWriter.pretty(.object($0)) } ?? String(decoding: r.fhirResource.data, as: UTF8.self)
    }
}

/// One series over time (`/trend`): a chart and the values as a table.
struct TrendPage: PageContent {
    static let template = "trend"

    /// One point, newest first.
    struct Row: Sendable {
        let date: String
        let value: String
        let flagged: Bool
        let link: String
        let linked: Bool
    }

    let title: String
    let name: String
    let unit: String
    let hasUnit: Bool
    let chart: String
    let range: String
    let hasRange: Bool
    let description: String
    let rows: [Row]

    init(_ s: TrendSeries) {
        title = s.name
        name = s.name
        unit = s.unit ?? ""
        hasUnit = !(s.unit ?? "").isEmpty
        chart = TrendChart.svg(s, id: "trend")
        range = s.range?.text ?? ""
        hasRange = s.range != nil
        description = TrendChart.description(s)
        rows = s.points.reversed().map {
            Row(date: PageDates.short($0.date), value: $0.text, flagged: $0.flagged, link: $0.identity.map(RecordPageRoutes.link) ?? "", linked: $0.identity != nil)
        }
    }
}

/// The most frequent labs and vitals (`/summary`), each with its latest value and a sparkline.
struct SummaryPage: PageContent {
    static let template = "summary"

    /// One series.
    struct Item: Sendable {
        let name: String
        let key: String
        let link: String
        let latest: String
        let date: String
        let count: Int
        let direction: String
        let spark: String
        let flagged: Bool
        let range: String
        let hasRange: Bool
        let hasDirection: Bool

        init(_ s: TrendSeries) {
            let last = s.points.last
            switch s.direction {
            case .up?: direction = "↑ up"
            case .down?: direction = "↓ down"
            case .same?: direction = "→ same"
            case nil: direction = ""
            }
            name = s.name
            key = s.key
            link = "/trend?key=\(RecordPageRoutes.encode(s.key))"
            latest = last?.text ?? ""
            date = last.map { PageDates.short($0.date) } ?? ""
            count = s.points.count
            spark = TrendChart.sparkline(s)
            flagged = last?.flagged ?? false
            range = s.range?.text ?? ""
            hasRange = s.range != nil
            hasDirection = !direction.isEmpty
        }
    }

    let title = "Summary"
    let items: [Item]
    let empty: Bool

    init(items: [Item]) {
        self.items = items
        empty = items.isEmpty
    }
}

/// Search over the person's records (`/search`).
struct SearchPage: PageContent {
    static let template = "search"

    /// A choice in a filter's list.
    struct Choice: Sendable {
        let id: String
        let name: String
        let title: String
        let selected: Bool
    }

    let title = "Search"
    let q: String
    let from: String
    let to: String
    let searched: Bool
    let categories: [Choice]
    let sources: [Choice]
    let results: [RecordRow]
    let count: Int
    let none: Bool
    let page: Int
    let pages: Int
    let hasPrevious: Bool
    let hasNext: Bool
    let previous: String
    let next: String
    let capped: Bool
}

/// The person's medication list (`/medication-list`): one line per medication across providers.
struct MedicationsPage: PageContent {
    static let template = "medications"

    /// One medication.
    struct Entry: Sendable {
        let id: String
        let name: String
        /// The person's nickname, when given (the name is then shown beside it).
        let nickname: String?
        let archived: Bool
        let status: String
        let active: Bool
        let codes: String?
        let form: String?
        let sources: String
        let dates: String
        let records: Int
    }

    let title = "Medications"
    let active: [Entry]
    let other: [Entry]
    let archived: [Entry]
    let empty: Bool
    let hasOther: Bool
    let hasArchived: Bool

    init(_ list: [AnnotatedMedication]) {
        let all = list.map { m in
            let e = m.entry
            return Entry(
                id: e.id, name: e.name, nickname: m.note.nickname, archived: m.note.archived, status: e.status.rawValue, active: e.status == .active, codes: e.rxNormCodes.isEmpty ? nil : "RxNorm " + e.rxNormCodes.joined(separator: ", "),
                form: e.form, sources: e.sources.map(\.name).joined(separator: ", "),
                dates: [e.firstDate, e.latestDate].compactMap { $0.map { String($0.text.prefix(10)) } }.uniqued().joined(separator: " – "),
                records: e.records.count)
        }
        let entries = all.filter { !$0.archived }
        active = entries.filter(\.active)
        other = entries.filter { !$0.active }
        archived = all.filter(\.archived)
        empty = all.isEmpty
        hasOther = !other.isEmpty
        hasArchived = !archived.isEmpty
    }
}

extension Array where Element: Hashable {
    /// The elements in order, each once.
    fileprivate func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
