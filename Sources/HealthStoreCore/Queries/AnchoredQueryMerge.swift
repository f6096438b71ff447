/// Merges added and deleted changes in anchor order and picks the anchor to resume from.
///
/// Engines fetch up to `limit` of each kind; only the first `limit` of the merged list are
/// returned, and the next anchor is the last one returned — or the store's current anchor
/// when everything was returned, so the caller never scans the same range twice.
public enum AnchoredQueryMerge {
    /// Merges engine results for clinical records into an ``AnchoredQueryResult``.
    public static func merge(added: [StoredResource], deleted: [DeletedRecord], limit: Int?, current: QueryAnchor) -> AnchoredQueryResult {
        let (a, d, anchor) = take(added.filter { $0.clinicalType != nil }, \.anchor, deleted, \.anchor, limit: limit, current: current)
        return AnchoredQueryResult(added: a.compactMap(\.clinicalRecord), addedAnchors: a.map(\.anchor), deleted: Array(d), anchor: anchor)
    }

    /// Merges engine results for quantity samples into an ``AnchoredSampleQueryResult``.
    public static func merge(added: [StoredQuantitySample], deleted: [DeletedSample], limit: Int?, current: QueryAnchor) -> AnchoredSampleQueryResult {
        let (a, d, anchor) = take(added, \.anchor, deleted, \.anchor, limit: limit, current: current)
        return AnchoredSampleQueryResult(added: Array(a), deleted: Array(d), anchor: anchor)
    }

    /// The first `limit` changes of both lists in anchor order, and the anchor to resume from.
    static func take<A, D>(
        _ added: [A], _ addedAnchor: (A) -> QueryAnchor, _ deleted: [D], _ deletedAnchor: (D) -> QueryAnchor,
        limit: Int?, current: QueryAnchor
    ) -> (ArraySlice<A>, ArraySlice<D>, QueryAnchor) {
        guard let limit, added.count + deleted.count > limit else { return (added[...], deleted[...], current) }
        var a = 0
        var d = 0
        var last = QueryAnchor.initial
        while a + d < limit {
            let takeAdded: Bool
            if a < added.count, d < deleted.count {
                takeAdded = addedAnchor(added[a]) < deletedAnchor(deleted[d])
            } else {
                takeAdded = a < added.count
            }
            if takeAdded {
                last = addedAnchor(added[a])
                a += 1
            } else {
                last = deletedAnchor(deleted[d])
                d += 1
            }
        }
        return (added[..<a], deleted[..<d], last)
    }
}
