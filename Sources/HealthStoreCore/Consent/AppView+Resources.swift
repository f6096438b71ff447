import ClinicalRecords
import FHIR
import Foundation

extension AppView {
    /// Resources of any kind — clinical records and context resources — that the app may see
    /// and that match a query: one page, with the total when asked, read in one snapshot.
    ///
    /// Visibility is decided in the same statements as the query (denied, undecided and, under
    /// "ask", unapproved resources match nothing, at the same cost), and the read is audited.
    public func resources(_ query: ResourceQuery, countingTotal: Bool) async throws -> ResourcePage {
        let v = try await visibility()
        var page = try await store.resources(query, visible: v.recordWindows, countingTotal: countingTotal)
        page.visibleWindows = v.recordWindows
        let types = query.categories.map { Array($0) } ?? Array(Set(page.resources.map(\.stored.category)))
        try await audit("resources", types: types.sorted().map(HealthDataType.init), count: page.resources.count)
        return page
    }

    /// The earlier versions of a resource this view read (``resources(_:countingTotal:)``), newest
    /// first. The resource must have come through this view: its visibility is the app's check.
    public func versions(of item: KeyedResource) async throws -> [ResourceVersion] {
        let versions = try await store.resourceVersions(of: item.key)
        try await audit("resource versions", types: [HealthDataType(item.stored.category)], count: versions.count)
        return versions
    }

    /// The key of a resource by source, type and id (computed, not looked up), e.g. to name
    /// the target of a reference the way ``resources(_:countingTotal:)`` names resources.
    public func resourceKey(source: String, resourceType: FHIRResourceType, identifier: String) -> ResourceKey {
        store.resourceKey(source: source, resourceType: resourceType, identifier: identifier)
    }
}
