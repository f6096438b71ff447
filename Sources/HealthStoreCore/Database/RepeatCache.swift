import Synchronization

/// A small bounded map for answers worth keeping only when they are asked for again.
///
/// A value is admitted the second time it is offered for a key: an app polling one search
/// keeps hitting it from its third request on, while a stream of different searches (a new
/// date each time) neither fills the map nor pays for copying every answer into it. When full
/// the map is emptied, and what it held is freed after the lock is given back, so other
/// requests do not wait on thousands of frees.
package final class RepeatCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var entries: [Key: Value] = [:]
        /// Hashes of keys offered once and not yet admitted.
        var offered: Set<Int> = []
    }

    private let state = Mutex(State())
    /// The most entries held.
    package let limit: Int

    /// Makes an empty cache of at most `limit` entries.
    package init(limit: Int) { self.limit = max(1, limit) }

    /// The value kept for a key.
    package func value(_ key: Key) -> Value? {
        state.withLock { $0.entries[key] }
    }

    /// Offers a value; it is kept when the key was offered before (or is held already).
    package func offer(_ value: Value, for key: Key) {
        let hash = key.hashValue
        var dropped: [Key: Value] = [:]
        var droppedOffers: Set<Int> = []
        state.withLock { s in
            if s.entries[key] == nil, s.offered.remove(hash) == nil {
                if s.offered.count >= limit * 4 { swap(&s.offered, &droppedOffers) }
                s.offered.insert(hash)
                return
            }
            if s.entries.count >= limit, s.entries[key] == nil { swap(&s.entries, &dropped) }
            s.entries[key] = value
        }
        // `dropped` and `droppedOffers` are freed here, outside the lock.
    }
}
