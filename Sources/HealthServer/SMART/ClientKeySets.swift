import Foundation
import SMARTAuthorization
import SmartHealthCards
import VerifiableRecords

/// The key sets of `private_key_jwt` clients that publish them at a JWKS URL, fetched once and
/// kept, so that a token request costs the server a fetch only now and then — not one per
/// request, which anyone could send with a forged assertion.
///
/// A set is kept for its `Cache-Control: max-age` (at least a minute, at most an hour; five
/// minutes without one, a minute with `no-store` or `no-cache`). A failed fetch is kept for a
/// minute too. An assertion naming a `kid` the kept set lacks (the client rotated its keys)
/// fetches again, at most once a minute. Requests for one URL while a fetch is under way wait for
/// that fetch. At most ``capacity`` URLs are kept; the oldest go first.
actor ClientKeySets {
    /// Fetches a URL: its body and `Cache-Control` header.
    typealias Fetch = @Sendable (URL) async throws(FetchError) -> (body: Data, cacheControl: String?)

    /// Why a client's keys could not be had; the detail is for the log, never for the client.
    struct Unavailable: Error, Sendable {
        let detail: String
    }

    private struct Entry: Sendable {
        let result: Result<ClientKeySet, Unavailable>
        let fetched: ContinuousClock.Instant
        let expires: ContinuousClock.Instant
    }

    static let defaultLifetime: Duration = .seconds(300)
    static let shortestLifetime: Duration = .seconds(60)
    static let longestLifetime: Duration = .seconds(3600)
    static let failureLifetime: Duration = .seconds(60)
    static let unknownKeyRefetch: Duration = .seconds(60)
    let capacity: Int

    private let fetch: Fetch
    private let clock = ContinuousClock()
    private var entries: [URL: Entry] = [:]
    private var inFlight: [URL: Task<Entry, Never>] = [:]
    /// Fetches made (tests).
    private(set) var fetches = 0

    init(capacity: Int = 1024, fetch: @escaping Fetch) {
        self.capacity = max(1, capacity)
        self.fetch = fetch
    }

    /// The key set at `url`; `kid` is the key the assertion names, if any.
    func keys(at url: URL, kid: String?) async -> Result<ClientKeySet, Unavailable> {
        let now = clock.now
        if let entry = entries[url], entry.expires > now {
            let lacksKey: Bool
            if case .success(let set) = entry.result, let kid { lacksKey = !set.keys.contains { $0.keyID == kid } } else { lacksKey = false }
            if !lacksKey || now - entry.fetched < Self.unknownKeyRefetch { return entry.result }
        }
        if let running = inFlight[url] { return await running.value.result }
        let fetch = self.fetch
        let clock = self.clock
        let task = Task<Entry, Never> {
            let result: Result<ClientKeySet, Unavailable>
            var lifetime = Self.failureLifetime
            do {
                let (body, cacheControl) = try await fetch(url)
                do {
                    result = .success(try ClientKeySet(data: body))
                    lifetime = Self.lifetime(cacheControl: cacheControl)
                } catch {
                    result = .failure(Unavailable(detail: "the key set at \(url.absoluteString) is unusable: \(error)"))
                }
            } catch {
                result = .failure(Unavailable(detail: "fetching \(url.absoluteString) failed: \(error)"))
            }
            let fetched = clock.now
            return Entry(result: result, fetched: fetched, expires: fetched + lifetime)
        }
        inFlight[url] = task
        fetches += 1
        let entry = await task.value
        inFlight[url] = nil
        entries[url] = entry
        if entries.count > capacity, let oldest = entries.min(by: { $0.value.fetched < $1.value.fetched })?.key { entries[oldest] = nil }
        return entry.result
    }

    /// How long a fetched set is kept, from its `Cache-Control`.
    static func lifetime(cacheControl: String?) -> Duration {
        guard let cacheControl else { return defaultLifetime }
        var maxAge: Int?
        for directive in cacheControl.lowercased().split(separator: ",") {
            let part = directive.trimmingCharacters(in: .whitespaces)
            if part == "no-store" || part == "no-cache" { return shortestLifetime }
            if part.hasPrefix("max-age="), let seconds = Int(part.dropFirst("max-age=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))), seconds >= 0 {
                maxAge = seconds
            }
        }
        guard let maxAge else { return defaultLifetime }
        return min(max(.seconds(maxAge), shortestLifetime), longestLifetime)
    }
}
