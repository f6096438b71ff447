import ClinicalRecords
import Synchronization

/// Pages of resources read recently, each with the store anchor it was read at.
///
/// Every change to the store takes an anchor, so a page read at the store's current anchor is
/// still exactly what the same query would read: an app polling the same search (the usual
/// case) costs one anchor read instead of a count and a page. The key holds everything the
/// answer depends on — the query, the visibility windows (the app's grants and "ask"
/// watermarks) and whether the total was counted. Bounded; emptied when full.
final class ResourcePageCache: Sendable {
    struct Key: Hashable, Sendable {
        let query: ResourceQuery
        let windows: [TypeWindow<ConsentCategory>]?
        let countingTotal: Bool
    }

    static let limit = 256

    private let pages = Mutex<[Key: (anchor: Int64, page: ResourcePage)]>([:])

    /// The page kept for a key when it was read at `anchor`.
    func page(_ key: Key, at anchor: Int64) -> ResourcePage? {
        pages.withLock { map in
            guard let hit = map[key], hit.anchor == anchor else { return nil }
            return hit.page
        }
    }

    /// Keeps a page read at `anchor`.
    func keep(_ page: ResourcePage, for key: Key, at anchor: Int64) {
        pages.withLock { map in
            if map.count >= Self.limit { map.removeAll(keepingCapacity: true) }
            map[key] = (anchor, page)
        }
    }
}
