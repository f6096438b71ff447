import Synchronization

/// How many keys the process prepares for fast verification: each ``PrecomputedP256Key`` holds
/// about 270 KB, so a verifier trusting thousands of issuers prepares only its busiest keys.
enum PreparedKeyBudget {
    /// Verifications with one key before it is prepared: preparing costs about as much as 40.
    static let threshold = 32
    /// At most this many prepared keys at once (about 17 MB).
    static let limit = 64
    private static let live = Atomic<Int>(0)

    /// Takes one place if one is free.
    static func reserve() -> Bool {
        var current = live.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = live.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Gives a place back when a prepared key goes away.
    static func release() { live.subtract(1, ordering: .relaxed) }
}
