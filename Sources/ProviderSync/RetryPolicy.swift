import Foundation

/// How requests to a provider are retried: 429 after its `Retry-After` (capped), 500, 502, 503
/// and 504 after a jittered, growing pause; anything else is answered at once.
public struct RetryPolicy: Sendable, Hashable {
    /// The most attempts of one request, the first included.
    public var maxAttempts: Int
    /// The first pause after a 5xx; each later one doubles, with ±50% jitter.
    public var baseDelay: Duration
    /// The longest single pause (a `Retry-After` beyond it is cut to it).
    public var maxDelay: Duration

    /// Makes a policy: 6 attempts, 0.5 s doubling, at most 60 s per pause.
    public init(maxAttempts: Int = 6, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(60)) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// Whether a status is worth another attempt.
    static func retries(_ status: Int) -> Bool { status == 429 || [500, 502, 503, 504].contains(status) }

    /// The pause before attempt `attempt + 1` (attempt counts from 1) after a status.
    func delay(after status: Int, attempt: Int, retryAfter: String?, now: Date = Date()) -> Duration {
        if let retryAfter, let seconds = Self.seconds(retryAfter: retryAfter, now: now) {
            return min(.milliseconds(Int64(seconds * 1000)), maxDelay)
        }
        let grown = Double(baseDelay.components.seconds) + Double(baseDelay.components.attoseconds) / 1e18
        let pause = grown * pow(2, Double(attempt - 1)) * Double.random(in: 0.5...1.5)
        return min(.milliseconds(Int64(pause * 1000)), maxDelay)
    }

    /// `Retry-After` as seconds from now: delta-seconds or an HTTP date (RFC 9110 §10.2.3).
    static func seconds(retryAfter value: String, now: Date) -> Double? {
        let t = value.trimmingCharacters(in: .whitespaces)
        if let n = Int(t), n >= 0 { return Double(n) }
        guard let date = ProviderDiscovery.httpDate(t) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
