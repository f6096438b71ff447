import Foundation
import Synchronization

/// Slows down wrong guesses without letting anyone lock others out.
///
/// Failed sign-ins and token requests are counted per source address and per (credential,
/// address) pair — never per credential alone, since a client id is not secret and a global
/// count would let anyone lock an app or the person out from elsewhere. A key that failed
/// ``freeFailures`` times answers tries with 429 for a while, twice as long after each further
/// failure (up to ``maxBackoff``); a key quiet for ``forgetAfter`` starts afresh. What a throttled
/// key's try gets is the caller's choice: the person's sign-in does not evaluate it at all (the
/// person token may be one a person chose, so its guesses must be slow, and the person still has
/// other addresses and their existing sessions), while apps' token requests still accept a right
/// secret from a throttled address (many clients may share one: a proxy, a NAT, this machine;
/// their secrets are 256-bit, so this bounds the work and noise of wrong tries).
///
/// Keys are fixed-size digests of what the caller names, and the table holds at most
/// ``capacity`` of them: when full, forgotten keys go first, then the least recently seen.
final class FailureThrottle: Sendable {
    private struct Entry {
        var failures: Int
        var blockedUntil: ContinuousClock.Instant
        var lastSeen: ContinuousClock.Instant
    }

    private let entries = Mutex<[ThrottleKey: Entry]>([:])
    let freeFailures: Int
    let baseBackoff: Duration
    let maxBackoff: Duration
    let forgetAfter: Duration
    let capacity: Int

    /// Makes a throttle; a negative `freeFailures` counts as 0, and `capacity` is at least 16.
    init(freeFailures: Int = 5, baseBackoff: Duration = .seconds(1), maxBackoff: Duration = .seconds(300), forgetAfter: Duration = .seconds(900), capacity: Int = 10_000) {
        self.freeFailures = max(0, freeFailures)
        self.baseBackoff = baseBackoff
        self.maxBackoff = maxBackoff
        self.forgetAfter = forgetAfter
        self.capacity = max(16, capacity)
    }

    /// Seconds to wait before any of these keys may try again; `nil` when all may try now.
    func wait(_ keys: [ThrottleKey]) -> Int? {
        let now = ContinuousClock.now
        return entries.withLock { map in
            var longest: Duration = .zero
            for k in keys {
                guard let e = map[k], now - e.lastSeen < forgetAfter, e.blockedUntil > now else { continue }
                longest = max(longest, e.blockedUntil - now)
            }
            guard longest > .zero else { return nil }
            return max(1, Int(longest.components.seconds) + (longest.components.attoseconds > 0 ? 1 : 0))
        }
    }

    /// Counts a failure against every key.
    func fail(_ keys: [ThrottleKey]) {
        let now = ContinuousClock.now
        entries.withLock { map in
            for k in keys {
                var e = map[k] ?? Entry(failures: 0, blockedUntil: now, lastSeen: now)
                if now - e.lastSeen >= forgetAfter { e.failures = 0 }
                e.failures += 1
                e.lastSeen = now
                let over = e.failures - freeFailures
                if over > 0 {
                    let factor = Double(1 << min(over - 1, 20))
                    e.blockedUntil = now + min(baseBackoff * factor, maxBackoff)
                }
                map[k] = e
            }
            if map.count > capacity { evict(&map, now: now) }
        }
    }

    /// Clears the keys after a success.
    func succeed(_ keys: [ThrottleKey]) {
        entries.withLock { map in for k in keys { map[k] = nil } }
    }

    /// How many keys are held (for tests and the soak check).
    var count: Int { entries.withLock { $0.count } }

    /// Drops forgotten keys, then the least recently seen, down to 90% of the capacity, so the
    /// cost of eviction is spread over many failures.
    private func evict(_ map: inout [ThrottleKey: Entry], now: ContinuousClock.Instant) {
        map = map.filter { now - $0.value.lastSeen < forgetAfter }
        let target = capacity * 9 / 10
        guard map.count > target else { return }
        let oldest = map.sorted { $0.value.lastSeen < $1.value.lastSeen }.prefix(map.count - target)
        for (k, _) in oldest { map[k] = nil }
    }
}

/// A throttle key: a SHA-256 digest of its parts, so its size never depends on the request.
struct ThrottleKey: Hashable, Sendable {
    private let digest: Data

    /// The key of a source address.
    static func address(_ address: String) -> ThrottleKey { ThrottleKey(digest: SecretToken.digest("address\u{0}" + address)) }

    /// The key of a credential tried from a source address.
    static func credential(_ name: String, from address: String) -> ThrottleKey {
        ThrottleKey(digest: SecretToken.digest("credential\u{0}" + name + "\u{0}" + address))
    }
}
