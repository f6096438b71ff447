import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import Hummingbird

/// The person's pages about records: one record in full, a test's trend, the summary of the most
/// frequent labs and vitals, and search. The person reads their own store (not audited).
struct RecordPageRoutes {
    let state: ServerState
    let person: PersonRoutes

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
            else { return person.notFound(context) }
            return person.page(context, "record", try await recordValues(record))
        }
        group.get("/trend") { request, context -> Response in
            guard let key = request.uri.queryParameters.get("key") else { return person.notFound(context) }
            let all = try await allSeries()
            guard let series = all.first(where: { $0.key == key }) else { return person.notFound(context) }
            return person.page(context, "trend", trendValues(series))
        }
        group.get("/summary") { _, context -> Response in
            let series = try await allSeries().sorted { $0.points.count > $1.points.count }.prefix(Self.summaryCount)
            let items = series.map { s -> [String: Any] in
                let last = s.points.last
                let arrow: String
                switch s.direction {
                case .up?: arrow = "↑ up"
                case .down?: arrow = "↓ down"
                case .same?: arrow = "→ same"
                case nil: arrow = ""
                }
                return [
                    "name": s.name, "key": s.key, "link": "/trend?key=\(Self.encode(s.key))", "latest": last?.text ?? "", "date": last.map { PersonRoutes.shortDate($0.date) } ?? "",
                    "count": s.points.count, "direction": arrow, "spark": TrendChart.sparkline(s), "flagged": last?.flagged ?? false,
                    "range": s.range?.text ?? "", "hasRange": s.range != nil, "hasDirection": !arrow.isEmpty,
                ]
            }
            return person.page(context, "summary", ["title": "Summary", "items": items, "empty": items.isEmpty])
        }
        group.get("/search") { request, context -> Response in
            try await search(request, context)
        }
    }

    // MARK: - One record

    func record(_ identity: RecordIdentity) async throws -> ClinicalRecord? {
        try await state.store.records(RecordQuery(type: nil, predicate: .identity(source: identity.source, resourceType: identity.resourceType, identifier: identity.identifier), limit: 1)).first
    }

    static func link(_ identity: RecordIdentity) -> String {
        "/record?source=\(encode(identity.source))&type=\(encode(identity.resourceType.rawValue))&id=\(encode(identity.identifier))"
    }

    static func encode(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    func recordValues(_ r: ClinicalRecord) async throws -> [String: Any] {
        let details = RecordDetails(record: r)
        var related: [[String: Any]] = []
        for link in details.links.prefix(100) {
            let identity = RecordIdentity(source: r.source.identifier, resourceType: FHIRResourceType(link.resourceType), identifier: link.identifier)
            if let target = try await record(identity) {
                let value = RecordDetails(record: target).values.first?.text ?? ""
                related.append(["label": link.label, "name": target.displayName, "value": value, "link": Self.link(identity), "linked": true])
            } else {
                related.append(["label": link.label, "name": link.display ?? "\(link.resourceType)/\(link.identifier)", "value": "", "link": "", "linked": false])
            }
        }
        let json = (try? r.fhirResource.json()).map { JSONWriter.pretty(.object($0)) } ?? String(decoding: r.fhirResource.data, as: UTF8.self)
        let series = details.quantity != nil ? TrendSeries.key(of: r, details: details) : nil
        return [
            "title": r.displayName, "name": r.displayName, "type": r.clinicalType.title, "resourceType": r.fhirResource.resourceType.rawValue,
            "values": details.values.map { ["label": $0.label ?? "", "hasLabel": $0.label != nil, "text": $0.text] },
            "hasValues": !details.values.isEmpty,
            "ranges": details.ranges.map(\.text), "hasRanges": !details.ranges.isEmpty,
            "flag": details.flag?.text ?? "", "flagged": details.flag?.isFlagged ?? false, "hasFlag": details.flag != nil,
            "status": details.status ?? "", "hasStatus": details.status != nil,
            "dates": details.dates.map { ["label": $0.label, "text": $0.text] },
            "clinicalDate": PersonRoutes.shortDate(r.clinicalDate), "added": PersonRoutes.shortDate(r.addedDate),
            "parties": details.parties.map { ["label": $0.label, "text": $0.text] }, "hasParties": !details.parties.isEmpty,
            "source": r.source.name, "sourceID": r.source.identifier,
            "codes": details.codes.map { ["system": $0.system, "code": $0.code, "name": $0.name ?? "—"] }, "hasCodes": !details.codes.isEmpty,
            "related": related, "hasRelated": !related.isEmpty,
            "trend": series.map { "/trend?key=\(Self.encode($0))" } ?? "", "hasTrend": series != nil,
            "json": json,
        ]
    }

    // MARK: - Trends

    /// Every series: lab results and vital signs by code, and the device samples by type.
    func allSeries() async throws -> [TrendSeries] {
        var series = TrendSeries.series(try await trendRecords())
        for type in QuantityType.allCases {
            let samples = try await state.store.samples(QuantitySampleQuery(type: type, limit: Self.scanLimit, sort: SampleSort(.start, ascending: false)))
            guard let unit = samples.first?.sample.unit else { continue }
            let points = samples.compactMap { s -> TrendSeries.Point? in
                guard s.sample.unit == unit, let v = s.sample.doubleValue, v.isFinite else { return nil }
                return TrendSeries.Point(date: s.sample.startDate, value: v, text: "\(s.sample.value) \(unit)", identity: nil, flagged: false)
            }
            guard !points.isEmpty else { continue }
            series.append(TrendSeries(key: "sample:" + type.rawValue, name: Self.sampleName(type), unit: unit, points: points, range: nil))
        }
        return series
    }

    static func sampleName(_ type: QuantityType) -> String {
        type.rawValue.split(separator: "-").enumerated().map { $0.offset == 0 ? $0.element.capitalized : String($0.element) }.joined(separator: " ") + " (device)"
    }

    /// Lab results and vital signs, newest first up to the scan limit.
    func trendRecords() async throws -> [ClinicalRecord] {
        var records: [ClinicalRecord] = []
        for type in [ClinicalType.labResult, .vitalSign] {
            records += try await state.store.records(RecordQuery(type: type, limit: Self.scanLimit, sort: RecordSort(.clinical, ascending: false)))
        }
        return records
    }

    func trendValues(_ s: TrendSeries) -> [String: Any] {
        [
            "title": s.name, "name": s.name, "unit": s.unit ?? "", "hasUnit": !(s.unit ?? "").isEmpty, "chart": TrendChart.svg(s, id: "trend"), "range": s.range?.text ?? "",
            "hasRange": s.range != nil, "description": TrendChart.description(s),
            "rows": s.points.reversed().map { p -> [String: Any] in
                ["date": PersonRoutes.shortDate(p.date), "value": p.text, "flagged": p.flagged, "link": p.identity.map(Self.link) ?? "", "linked": p.identity != nil]
            },
        ]
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
            matches = try await state.store.records(query).filter { r in
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
        let sources = try await state.store.sources()
        return person.page(context, "search", [
            "title": "Search", "q": text, "from": from?.text ?? "", "to": to?.text ?? "", "searched": searched,
            "categories": ClinicalType.allCases.map { ["name": $0.name, "title": $0.title, "selected": $0 == category] },
            "sources": sources.map { ["id": $0.identifier, "name": $0.name, "selected": $0.identifier == source] },
            "results": shown.map { person.recordRow($0) }, "count": matches.count, "none": searched && matches.isEmpty,
            "page": page, "pages": pages, "hasPrevious": page > 1, "hasNext": page < pages,
            "previous": pageLink(page - 1), "next": pageLink(page + 1), "capped": matches.count >= Self.scanLimit,
        ])
    }
}
