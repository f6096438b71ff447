import ClinicalRecords

/// Pages of resources read recently, each with the store anchor it was read at.
///
/// Every change to the store takes an anchor, so a page read at the store's current anchor is
/// still exactly what the same query would read: an app polling the same search (the usual
/// case) costs one anchor read instead of a count and a page. The key holds everything the
/// answer depends on — the query, the visibility windows (the app's grants and "ask"
/// watermarks) and whether the total was counted. A page is kept the second time it is read
/// (``RepeatCache``), so searches that differ every time cost nothing here.
final class ResourcePageCache: Sendable {
    struct Key: Hashable, Sendable {
        let query: ResourceQuery
        let windows: [TypeWindow<ConsentCategory>]?
        let countingTotal: Bool
    }

    static let limit = 256

    private let pages = RepeatCache<Key, Kept>(limit: limit)

    private struct Kept: Sendable {
        let anchor: Int64
        let page: ResourcePage
    }

    /// The page kept for a key when it was read at `anchor`.
    func page(_ key: Key, at anchor: Int64) -> ResourcePage? {
        guard let hit = pages.value(key), hit.anchor == anchor else { return nil }
        return hit.page
    }

    /// Whether a page is kept for a key, at any anchor.
    func holds(_ key: Key) -> Bool { pages.value(key) != nil }

    /// Offers a page read at `anchor`.
    func keep(_ page: ResourcePage, for key: Key, at anchor: Int64) {
        pages.offer(Kept(anchor: anchor, page: page), for: key)
    }
}
