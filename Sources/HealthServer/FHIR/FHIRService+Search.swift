import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

extension FHIRService {
    /// One page of a search (or of `$everything`) as a searchset Bundle; `page` is the state a
    /// `_page` token carried, `nil` for a first page.
    ///
    /// A first page reads the snapshot anchor, the total and the page together; later pages
    /// read only resources first added at or before that anchor, so records imported while an
    /// app pages neither repeat nor shift what it sees, and the total stays the first page's.
    func search(_ request: FHIRSearchRequest, page: FHIRPageState?, selfURL: String, _ caller: FHIRCaller, countCap: Int) async throws -> [UInt8] {
        let shared = try await shared()
        let plan = try FHIRSearchPlan.compile(
            request, .init(personID: shared.personID, fhirBase: base(caller), reach: caller.scopes?.search, countCap: countCap))
        let offset = page?.offset ?? 0
        let snapshot = page.map { QueryAnchor(rawValue: $0.snapshot) }
        let found: Found
        if plan.matchesNothing {
            found = Found(total: 0, entries: [], snapshot: snapshot ?? .initial)
        } else if request.everything {
            found = try await everything(plan, offset: offset, snapshot: snapshot, total: page?.total, caller)
        } else if request.resourceType == "Patient" {
            found = try await patients(plan, offset: offset, snapshot: snapshot, caller)
        } else if plan.filters.isEmpty {
            let result = try await pageInSQL(plan.query, offset: offset, limit: plan.count, snapshot: snapshot, counting: page == nil, caller)
            // The same page (the same query through the same windows at the same store anchor)
            // for the same request and app makes the same Bundle: send the one made before.
            let key = BundleKey(
                appID: caller.view.app.id, scopes: caller.scopes, request: request, page: page, selfURL: selfURL, windows: result.visibleWindows)
            if let kept = keptBundle(key, readAt: result.readAt) { return kept }
            found = Found(
                total: page?.total ?? result.total ?? 0, entries: try await entries(result.resources, of: result, caller),
                snapshot: result.snapshot, readAt: result.readAt, windows: result.visibleWindows)
        } else {
            found = try await pageInMemory(plan, offset: offset, snapshot: snapshot, caller)
        }
        var next: String? = nil
        if plan.count > 0, offset + plan.count < found.total {
            let state = FHIRPageState(search: request, snapshot: found.snapshot.rawValue, offset: offset + plan.count, total: found.total)
            let path = request.everything ? "/Patient/\(shared.personID)/$everything" : "/\(request.resourceType)"
            next = base(caller) + path + "?_page=" + shared.pages.seal(state, appID: caller.view.app.id)
        }
        let bytes = SearchsetBundle(total: found.total, selfURL: selfURL, nextURL: next, entries: found.entries).bytes
        if let readAt = found.readAt {
            keepBundle(
                bytes, for: BundleKey(appID: caller.view.app.id, scopes: caller.scopes, request: request, page: page, selfURL: selfURL, windows: found.windows),
                readAt: readAt)
        }
        return bytes
    }

    /// What a page found: the total, the page's entries and the snapshot it was read at.
    struct Found {
        let total: Int
        let entries: [SearchsetBundle.Entry]
        let snapshot: QueryAnchor
        /// The store anchor the page was read at, when it was one SQL page.
        var readAt: QueryAnchor? = nil
        /// The consent windows it was read through.
        var windows: [TypeWindow<ConsentCategory>]? = nil
    }

    /// One page read in SQL: the page query, and with `counting` the count, in one snapshot.
    private func pageInSQL(
        _ query: ResourceQuery, offset: Int, limit: Int, snapshot: QueryAnchor?, counting: Bool, _ caller: FHIRCaller
    ) async throws -> ResourcePage {
        var q = query
        q.addedThrough = snapshot
        q.offset = offset
        q.limit = limit
        return try await caller.view.resources(q, countingTotal: counting)
    }

    /// A search with conditions only the JSON answers: the snapshot is read whole and filtered.
    private func pageInMemory(_ plan: FHIRSearchPlan, offset: Int, snapshot: QueryAnchor?, _ caller: FHIRCaller) async throws -> Found {
        var q = plan.query
        q.addedThrough = snapshot
        let result = try await caller.view.resources(q, countingTotal: false)
        let matched = try result.resources.filter { item in try Self.holds(plan.filters, item) }
        let page = Array(matched.dropFirst(offset).prefix(plan.count))
        return Found(total: matched.count, entries: try await entries(page, of: result, caller), snapshot: result.snapshot)
    }

    /// Whether every filter holds for a stored resource.
    private static func holds(_ filters: [SearchFilter], _ item: KeyedResource) throws -> Bool {
        let subject = SearchSubject(
            json: try item.stored.resource.json(), category: item.stored.category, servedID: item.key.hex, lastUpdated: item.stored.addedDate)
        return filters.allSatisfy { $0(subject) }
    }

    /// A Patient search: the person's one Patient, when the app may see it and it matches.
    private func patients(_ plan: FHIRSearchPlan, offset: Int, snapshot: QueryAnchor?, _ caller: FHIRCaller) async throws -> Found {
        guard let patient = try await mergedPatient(caller, reach: caller.scopes?.search, snapshot: snapshot), plan.filters.allSatisfy({ $0(patient.subject) }) else {
            return Found(total: 0, entries: [], snapshot: snapshot ?? .initial)
        }
        let entries = offset == 0 && plan.count > 0 ? [patientEntry(patient.bytes, patient.subject.servedID, caller)] : []
        return Found(total: 1, entries: entries, snapshot: snapshot ?? .initial)
    }

    /// `$everything`: the person's Patient first (when asked for and visible), then every
    /// resource of the other types, in the order the store added them. Under a granular scope
    /// the snapshot is read whole and the types reached in part are looked at.
    private func everything(_ plan: FHIRSearchPlan, offset: Int, snapshot: QueryAnchor?, total: Int?, _ caller: FHIRCaller) async throws -> Found {
        let patient = plan.includesPatient ? try await mergedPatient(caller, reach: caller.scopes?.search, snapshot: snapshot) : nil
        let lead = patient == nil ? 0 : 1
        var entries: [SearchsetBundle.Entry] = []
        if let patient, offset == 0, plan.count > 0 { entries.append(patientEntry(patient.bytes, patient.subject.servedID, caller)) }
        let sqlOffset = max(0, offset - lead)
        let limit = plan.count - entries.count
        if let scopeFilter = plan.scopeFilter {
            var q = plan.query
            q.addedThrough = snapshot
            let result = try await caller.view.resources(q, countingTotal: false)
            let matched = try result.resources.filter { item in try Self.holds([scopeFilter], item) }
            entries += try await self.entries(Array(matched.dropFirst(sqlOffset).prefix(limit)), of: result, caller)
            return Found(total: total ?? (matched.count + lead), entries: entries, snapshot: result.snapshot)
        }
        let result = try await pageInSQL(plan.query, offset: sqlOffset, limit: limit, snapshot: snapshot, counting: total == nil, caller)
        entries += try await self.entries(result.resources, of: result, caller)
        return Found(total: total ?? ((result.total ?? 0) + lead), entries: entries, snapshot: result.snapshot)
    }

    private func patientEntry(_ bytes: Data, _ id: String, _ caller: FHIRCaller) -> SearchsetBundle.Entry {
        SearchsetBundle.Entry(fullUrl: base(caller) + "/Patient/" + id, resource: bytes, mode: "match")
    }

    /// Served entries of stored resources, read as part of `page`.
    private func entries(_ items: [KeyedResource], of page: ResourcePage, _ caller: FHIRCaller) async throws -> [SearchsetBundle.Entry] {
        guard !items.isEmpty else { return [] }
        let rewriter = try await rewriter(caller, at: page.snapshot)
        let contained = ContainedFilter(reach: caller.scopes?.search, windows: page.visibleWindows)
        let base = base(caller)
        return try items.map { item in
            let id = item.key.hex
            return SearchsetBundle.Entry(
                fullUrl: base + "/" + item.stored.resource.resourceType.rawValue + "/" + id,
                resource: try served(item, id: id, rewriter, contained: contained), mode: "match")
        }
    }
}
