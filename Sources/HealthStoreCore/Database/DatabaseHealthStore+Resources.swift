import ClinicalRecords
import FHIR
import Foundation

extension DatabaseHealthStore {
    public func resources(_ query: ResourceQuery, visible windows: [TypeWindow<ConsentCategory>]?, countingTotal: Bool) async throws -> ResourcePage {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        if query.offset < 0 { throw HealthStoreError.invalidArgument("offset must not be negative") }
        let key = ResourcePageCache.Key(query: query, windows: windows, countingTotal: countingTotal)
        let dialect = self.dialect
        // A kept page is good only at the anchor it was read at; a search not kept (a new one
        // each time) goes straight to its read, which carries the anchor.
        if pageCache.holds(key) {
            let current = try await read { session in try await Self.currentAnchor(session, dialect) }
            if let kept = pageCache.page(key, at: current) { return kept }
        }
        let builder = ResourceSQL(dialect: dialect)
        let sealer = self.sealer
        if dialect.pagesInOneStatement {
            // One statement, one snapshot: the page's rows carry the anchor and the count.
            let statement = builder.selectWithAnchor(query, visible: windows, counting: countingTotal)
            let rows = try await read { session in try await session.rows(statement) }
            if let first = rows.first {
                let latest = try first.int(15)
                let total = countingTotal ? Int(try first.int(16)) : nil
                let resources = try rows.map { try RowCoding.keyed($0, sealer) }
                let read = ResourcePage(
                    resources: resources, total: total, snapshot: query.addedThrough ?? QueryAnchor(rawValue: latest), readAt: QueryAnchor(rawValue: latest))
                pageCache.keep(read, for: key, at: latest)
                return read
            }
            // An empty page carries nothing: read it in a transaction below.
        }
        let count = countingTotal ? builder.count(query, visible: windows) : nil
        let (read, anchor) = try await snapshot { session in
            let latest = try await Self.currentAnchor(session, dialect)
            var total: Int? = nil
            if let count { total = Int(try await session.row(count)?.int(0) ?? 0) }
            let page = builder.select(query, visible: windows, matching: total)
            let resources = try await session.rows(page).map { try RowCoding.keyed($0, sealer) }
            return (ResourcePage(resources: resources, total: total, snapshot: query.addedThrough ?? QueryAnchor(rawValue: latest), readAt: QueryAnchor(rawValue: latest)), latest)
        }
        pageCache.keep(read, for: key, at: anchor)
        return read
    }

    public func resourceKey(source: String, resourceType: FHIRResourceType, identifier: String) -> ResourceKey {
        ResourceKey(bytes: sealer.identityKey([source, resourceType.rawValue, identifier]))
    }
}
