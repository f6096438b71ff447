/// Merges added and deleted changes in anchor order and picks the anchor to resume from.
///
/// Engines fetch up to `limit` of each kind; only the first `limit` of the merged list are
/// returned, and the next anchor is the last one returned — or the store's current anchor
/// when everything was returned, so the caller never scans the same range twice.
public enum AnchoredQueryMerge {
    /// Merges engine results into an ``AnchoredQueryResult``.
    public static func merge(added: [StoredResource], deleted: [DeletedRecord], limit: Int?, current: QueryAnchor) -> AnchoredQueryResult {
        guard let limit, added.count + deleted.count > limit else {
            return AnchoredQueryResult(added: added.compactMap(\.clinicalRecord), deleted: deleted, anchor: current)
        }
        var a = 0
        var d = 0
        var last = QueryAnchor.initial
        while a + d < limit {
            let takeAdded: Bool
            if a < added.count, d < deleted.count { takeAdded = added[a].anchor < deleted[d].anchor } else { takeAdded = a < added.count }
            if takeAdded {
                last = added[a].anchor
                a += 1
            } else {
                last = deleted[d].anchor
                d += 1
            }
        }
        return AnchoredQueryResult(added: added[..<a].compactMap(\.clinicalRecord), deleted: Array(deleted[..<d]), anchor: last)
    }
}
