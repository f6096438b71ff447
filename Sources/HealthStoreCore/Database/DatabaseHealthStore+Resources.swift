import ClinicalRecords
import FHIR
import Foundation

extension DatabaseHealthStore {
    public func resources(_ query: ResourceQuery, visible windows: [TypeWindow<ConsentCategory>]?, countingTotal: Bool) async throws -> ResourcePage {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        if query.offset < 0 { throw HealthStoreError.invalidArgument("offset must not be negative") }
        let builder = ResourceSQL(dialect: dialect)
        let page = builder.select(query, visible: windows)
        let count = countingTotal ? builder.count(query, visible: windows) : nil
        let sealer = self.sealer
        let dialect = self.dialect
        return try await snapshot { session in
            var snapshot = query.addedThrough?.rawValue ?? 0
            if query.addedThrough == nil { snapshot = try await Self.currentAnchor(session, dialect) }
            var total: Int? = nil
            if let count { total = Int(try await session.row(count)?.int(0) ?? 0) }
            let resources = try await session.rows(page).map { try RowCoding.keyed($0, sealer) }
            return ResourcePage(resources: resources, total: total, snapshot: QueryAnchor(rawValue: snapshot))
        }
    }

    public func resourceKey(source: String, resourceType: FHIRResourceType, identifier: String) -> ResourceKey {
        ResourceKey(bytes: sealer.identityKey([source, resourceType.rawValue, identifier]))
    }
}
