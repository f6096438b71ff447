import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches over HTTPS with Foundation's URL loading, enforcing a ``FetchPolicy``.
///
/// The host is resolved and checked before connecting; redirects are followed only to https
/// on the same host; the body is cut off at the size cap; the whole fetch has one deadline.
public struct URLSessionFetcher: HTTPFetcher {
    /// The rules every fetch follows.
    public let policy: FetchPolicy

    /// Makes a fetcher.
    public init(policy: FetchPolicy = .standard) {
        self.policy = policy
    }

    public func get(_ url: URL) async throws(FetchError) -> Data {
        try check(url)
        let policy = self.policy
        let result: Result<Data, FetchError> = await withTaskGroup(of: Result<Data, FetchError>?.self) { group in
            let delegate = CappedDownload(policy: policy, origin: url)
            group.addTask { await delegate.run(url) }
            group.addTask {
                try? await Task.sleep(for: policy.timeout)
                return nil
            }
            let first = await group.next()!
            delegate.cancel()
            group.cancelAll()
            return first ?? .failure(.timedOut(after: policy.timeout))
        }
        return try result.get()
    }

    /// Checks the scheme and the addresses the host resolves to.
    func check(_ url: URL) throws(FetchError) {
        guard let host = url.host, !host.isEmpty else { throw .insecureURL(url.absoluteString) }
        guard let addresses = AddressPolicy.resolve(host), !addresses.isEmpty else { throw .unresolvable(host: host) }
        let kinds = addresses.map { ($0, AddressPolicy.kind($0)) }
        for (address, kind) in kinds {
            switch kind {
            case .loopback where !policy.allowLoopback: throw .forbiddenAddress(host: host, address: address)
            case .privateRange where !policy.allowPrivateAddresses: throw .forbiddenAddress(host: host, address: address)
            default: break
            }
        }
        let allLoopback = kinds.allSatisfy { $0.1 == .loopback }
        switch url.scheme?.lowercased() {
        case "https"?: break
        case "http"? where policy.allowLoopback && allLoopback: break
        default: throw .insecureURL(url.absoluteString)
        }
    }
}

/// One download: counts bytes as they arrive and stops at the cap; vets redirects.
final class CappedDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Mutable state is only touched on the session's delegate queue and guarded by `lock`.
    private let policy: FetchPolicy
    private let origin: URL
    private let lock = NSLock()
    private var body = Data()
    private var failure: FetchError?
    private var continuation: CheckedContinuation<Result<Data, FetchError>, Never>?
    private var session: URLSession?
    private var finished = false

    init(policy: FetchPolicy, origin: URL) {
        self.policy = policy
        self.origin = origin
    }

    func run(_ url: URL) async -> Result<Data, FetchError> {
        await withCheckedContinuation { c in
            lock.lock()
            continuation = c
            let config = URLSessionConfiguration.ephemeral
            config.timeoutIntervalForRequest = Self.seconds(policy.timeout)
            config.timeoutIntervalForResource = Self.seconds(policy.timeout)
            config.requestCachePolicy = .reloadIgnoringLocalCacheData
            let s = URLSession(configuration: config, delegate: self, delegateQueue: nil)
            session = s
            lock.unlock()
            var request = URLRequest(url: url)
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            s.dataTask(with: request).resume()
        }
    }

    func cancel() {
        lock.lock()
        let s = session
        lock.unlock()
        s?.invalidateAndCancel()
        finish(.failure(.timedOut(after: policy.timeout)))
    }

    private func finish(_ result: Result<Data, FetchError>) {
        lock.lock()
        guard !finished else { lock.unlock(); return }
        finished = true
        let c = continuation
        continuation = nil
        lock.unlock()
        c?.resume(returning: result)
    }

    /// Records the first failure; later ones (a cancelled task's error) do not replace it.
    private func fail(_ error: FetchError) {
        lock.lock()
        if failure == nil { failure = error }
        lock.unlock()
    }

    static func seconds(_ d: Duration) -> TimeInterval {
        let (s, atto) = d.components
        return TimeInterval(s) + TimeInterval(atto) / 1e18
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse, completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        if let http = response as? HTTPURLResponse, http.statusCode != 200 {
            fail(.status(http.statusCode))
            completionHandler(.cancel)
            return
        }
        if response.expectedContentLength > Int64(policy.maxBytes) {
            fail(.tooLarge(limit: policy.maxBytes))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        body.append(data)
        let over = body.count > policy.maxBytes
        if over, failure == nil { failure = .tooLarge(limit: policy.maxBytes) }
        lock.unlock()
        if over { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        let target = request.url
        let fetcher = URLSessionFetcher(policy: policy)
        var allowed = target?.host == origin.host && target?.scheme == origin.scheme
        if allowed, let target {
            do { try fetcher.check(target) } catch { allowed = false }
        }
        if !allowed {
            fail(.redirectRefused(to: target?.absoluteString ?? "?"))
            completionHandler(nil)
            task.cancel()
            return
        }
        completionHandler(request)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        let f = failure
        let b = body
        lock.unlock()
        session.finishTasksAndInvalidate()
        if let f { finish(.failure(f)); return }
        if let error {
            let ns = error as NSError
            if ns.code == NSURLErrorTimedOut { finish(.failure(.timedOut(after: policy.timeout))); return }
            finish(.failure(.transport(ns.localizedDescription)))
            return
        }
        if let http = task.response as? HTTPURLResponse, http.statusCode != 200 { finish(.failure(.status(http.statusCode))); return }
        finish(.success(b))
    }
}
