import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import Hummingbird

/// The person's pages about records: one record in full, a test's trend, the summary of the most
/// frequent labs and vitals, and search. The person reads their own store (not audited).
struct RecordPageRoutes {
    let records: any RecordReading & SampleStorage
    let pages: PersonPages

    /// Results per search page.
    static let pageSize = 50
    /// The most records a search or trend reads; a store beyond it is searched in its newest.
    static let scanLimit = 20_000
    /// Series on the summary.
    static let summaryCount = 8

    func register(on group: RouterGroup<HealthRequestContext>) {
        group.get("/record") { request, context -> Response in
            let q = request.uri.queryParameters
            guard let source = q.get("source"), let type = q.get("type"), let id = q.get("id"),
                let record = try await record(RecordIdentity(source: source, resourceType: FHIRResourceType(type), identifier: id))
            else { return pages.notFound(context) }
            return pages.page(context, try await recordPage(record))
        }
        group.get("/trend") { request, context -> Response in
            guard let key = request.uri.queryParameters.get("key") else { return pages.notFound(context) }
            guard let series = try await series(key: key) else { return pages.notFound(context) }
            return pages.page(context, TrendPage(series))
        }
        group.get("/summary") { _, context -> Response in
            let series = try await allSeries().sorted { $0.points.count > $1.points.count }.prefix(Self.summaryCount)
            return pages.page(context, SummaryPage(items: series.map(SummaryPage.Item.init)))
        }
        group.get("/search") { request, context -> Response in
            try await search(request, context)
        }
    }

    // MARK: - One record

    func record(_ identity: RecordIdentity) async throws -> ClinicalRecord? {
        try await records.records(RecordQuery(type: nil, predicate: .identity(source: identity.source, resourceType: identity.resourceType, identifier: identity.identifier), limit: 1)).first
    }

    static func link(_ identity: RecordIdentity) -> String {
        "/record?source=\(encode(identity.source))&type=\(encode(identity.resourceType.rawValue))&id=\(encode(identity.identifier))"
    }

    static func encode(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    /// A record's page: the records it refers to are read in one statement.
    func recordPage(_ r: ClinicalRecord) async throws -> RecordPage {
        let details = RecordDetails(record: r)
        let links = Array(details.links.prefix(100))
        let identities = links.map { RecordIdentity(source: r.source.identifier, resourceType: FHIRResourceType($0.resourceType), identifier: $0.identifier) }
        let found = Dictionary(try await records.records(identifiedBy: identities).map { ($0.identity, $0) }, uniquingKeysWith: { a, _ in a })
        let related = zip(links, identities).map { link, identity -> RecordPage.Related in
            guard let target = found[identity] else {
                return RecordPage.Related(label: link.label, name: link.display ?? "\(link.resourceType)/\(link.identifier)", value: "", link: "", linked: false)
            }
            let value = RecordDetails(record: target).values.first?.text ?? ""
            return RecordPage.Related(label: link.label, name: target.displayName, value: value, link: Self.link(identity), linked: true)
        }
        return RecordPage(r, details: details, related: related)
    }

    // MARK: - Trends

    /// Every series: lab results and vital signs by code, and the device samples by type.
    func allSeries() async throws -> [TrendSeries] {
        var series = TrendSeries.series(try await trendRecords())
        for type in QuantityType.allCases {
            if let s = try await sampleSeries(type) { series.append(s) }
        }
        return series
    }

    /// One series by its key: a device type's samples, or the records of one code (only its
    /// points are made).
    func series(key: String) async throws -> TrendSeries? {
        if key.hasPrefix("sample:") {
            guard let type = QuantityType(rawValue: String(key.dropFirst(7))) else { return nil }
            return try await sampleSeries(type)
        }
        let members = try await trendRecords().filter { record in
            guard record.clinicalDate != nil else { return false }
            let details = RecordDetails(record: record)
            return details.quantity != nil && TrendSeries.key(of: record, details: details) == key
        }
        return TrendSeries.series(members).first { $0.key == key }
    }

    /// A device type's samples, newest first up to the scan limit, as one series.
    func sampleSeries(_ type: QuantityType) async throws -> TrendSeries? {
        let samples = try await records.samples(QuantitySampleQuery(type: type, limit: Self.scanLimit, sort: SampleSort(.start, ascending: false)))
        guard let unit = samples.first?.sample.unit else { return nil }
        let points = samples.compactMap { s -> TrendSeries.Point? in
            guard s.sample.unit == unit, let v = s.sample.doubleValue, v.isFinite else { return nil }
            return TrendSeries.Point(date: s.sample.startDate, value: v, text: "\(s.sample.value) \(unit)", identity: nil, flagged: false)
        }
        guard !points.isEmpty else { return nil }
        return TrendSeries(key: "sample:" + type.rawValue, name: Self.sampleName(type), unit: unit, points: points, range: nil)
    }

    static func sampleName(_ type: QuantityType) -> String {
        type.rawValue.split(separator: "-").enumerated().map { $0.offset == 0 ? $0.element.capitalized : String($0.element) }.joined(separator: " ") + " (device)"
    }

    /// Lab results and vital signs, newest first up to the scan limit.
    func trendRecords() async throws -> [ClinicalRecord] {
        var found: [ClinicalRecord] = []
        for type in [ClinicalType.labResult, .vitalSign] {
            found += try await records.records(RecordQuery(type: type, limit: Self.scanLimit, sort: RecordSort(.clinical, ascending: false)))
        }
        return found
    }

    // MARK: - Search

    func search(_ request: Request, _ context: HealthRequestContext) async throws -> Response {
        let q = request.uri.queryParameters
        let text = (q.get("q") ?? "").trimmingCharacters(in: .whitespaces)
        let category = q.get("category").flatMap { $0.isEmpty ? nil : ClinicalType(name: $0) }
        let source = q.get("source").flatMap { $0.isEmpty ? nil : $0 }
        let from = q.get("from").flatMap { $0.isEmpty ? nil : FHIRDate($0) }
        let to = q.get("to").flatMap { $0.isEmpty ? nil : FHIRDate($0) }
        let pageNumber = max(1, Int(q.get("page") ?? "") ?? 1)
        var predicates: [RecordPredicate] = []
        if let source { predicates.append(.source(source)) }
        if from != nil || to != nil {
            predicates.append(.clinicalDate(from: from?.date, to: to.map { $0.date.addingTimeInterval($0.text.count <= 10 ? 86_400 : 0) }))
        }
        let searched = !text.isEmpty || category != nil || source != nil || from != nil || to != nil
        var matches: [ClinicalRecord] = []
        if searched {
            let query = RecordQuery(
                type: category, predicate: predicates.isEmpty ? nil : predicates.count == 1 ? predicates[0] : .and(predicates), limit: Self.scanLimit,
                sort: RecordSort(.clinical, ascending: false))
            let needle = text.lowercased()
            matches = try await records.records(query).filter { r in
                guard !needle.isEmpty else { return true }
                if r.displayName.lowercased().contains(needle) { return true }
                return RecordDetails(record: r).codes.contains { $0.code.lowercased() == needle || ($0.name?.lowercased().contains(needle) ?? false) }
            }
        }
        let pages = max(1, (matches.count + Self.pageSize - 1) / Self.pageSize)
        let page = min(pageNumber, pages)
        let shown = matches.dropFirst((page - 1) * Self.pageSize).prefix(Self.pageSize)
        func pageLink(_ n: Int) -> String {
            var parts = ["q=\(Self.encode(text))", "page=\(n)"]
            if let category { parts.append("category=\(category.name)") }
            if let source { parts.append("source=\(Self.encode(source))") }
            if let from { parts.append("from=\(Self.encode(from.text))") }
            if let to { parts.append("to=\(Self.encode(to.text))") }
            return "/search?" + parts.joined(separator: "&")
        }
        let sources = try await records.sources()
        return self.pages.page(context, SearchPage(
            q: text, from: from?.text ?? "", to: to?.text ?? "", searched: searched,
            categories: ClinicalType.allCases.map { SearchPage.Choice(id: "", name: $0.name, title: $0.title, selected: $0 == category) },
            sources: sources.map { SearchPage.Choice(id: $0.identifier, name: $0.name, title: "", selected: $0.identifier == source) },
            results: shown.map { RecordRow($0) }, count: matches.count, none: searched && matches.isEmpty,
            page: page, pages: pages, hasPrevious: page > 1, hasNext: page < pages,
            previous: pageLink(page - 1), next: pageLink(page + 1), capped: matches.count >= Self.scanLimit))
    }
}
