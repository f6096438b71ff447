import Foundation

extension DatabaseHealthStore {
    public func resourceVersions(of key: ResourceKey) async throws -> [ResourceVersion] {
        var q = sql("SELECT v.anchor, v.replaced_date, v.data FROM resource_version v JOIN resource r ON ")
        q += q.sameScope("v", "r") + "r.id = v.resource_row WHERE " + q.scope("r") + " AND r.identity = " + q.bind(key.bytes)
        q += " ORDER BY v.anchor DESC"
        let sealer = self.sealer
        return try await read { session in
            try await session.rows(q).map { row in
                ResourceVersion(
                    anchor: QueryAnchor(rawValue: try row.int(0)), replacedDate: Date(timeIntervalSince1970: try row.double(1)),
                    data: try sealer.open(try row.data(2)))
            }
        }
    }
}
