import Foundation
import Synchronization

/// Token buckets, one per key (an app id): each request takes a token; tokens come back at a
/// steady rate up to the bucket's size. An empty bucket means 429 with `Retry-After`.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let buckets = Mutex<[String: Bucket]>([:])
    private let rate: Double
    private let burst: Double

    /// Makes a limiter refilling `rate` tokens a second up to `burst`.
    init(rate: Double, burst: Double) {
        self.rate = max(rate, 0)
        self.burst = max(burst, 1)
    }

    /// Takes a token for the key: `nil` when allowed, else the seconds to wait.
    func take(_ key: String) -> Int? {
        let now = ContinuousClock.now
        return buckets.withLock { map in
            var b = map[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = now - b.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            b.tokens = min(burst, b.tokens + seconds * rate)
            b.updated = now
            defer { map[key] = b }
            if b.tokens >= 1 {
                b.tokens -= 1
                return nil
            }
            guard rate > 0 else { return 3600 }
            return max(1, Int(((1 - b.tokens) / rate).rounded(.up)))
        }
    }
}
