import Foundation
import SmartHealthCards
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What delivers a webhook: one POST, answered 2xx or not. Injectable, so tests can watch
/// deliveries and fail them on purpose.
public protocol WebhookSender: Sendable {
    /// Posts a JSON body with headers; returns whether the receiver answered 2xx in time.
    func post(_ url: URL, body: Data, headers: [String: String], timeout: Duration) async -> Bool
}

/// Why a webhook URL is refused.
public enum WebhookURLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not an absolute http(s) URL with a host.
    case malformed(String)
    /// Plain http to a host that is not this machine.
    case insecure(String)
    /// The host does not resolve.
    case unresolvable(host: String)
    /// The host resolves to an address the policy forbids (loopback, private networks).
    case forbiddenAddress(host: String, address: String)

    public var description: String {
        switch self {
        case .malformed(let u): return "not an absolute http(s) URL: \(u)"
        case .insecure(let u): return "webhooks must use https: \(u)"
        case .unresolvable(let h): return "cannot resolve \(h)"
        case .forbiddenAddress(let h, let a): return "\(h) resolves to \(a), which this server may not send to"
        }
    }

    /// Checks a target against the policy: https (http only to loopback when allowed), and
    /// no loopback or private address unless allowed. Checked at registration and again
    /// before every delivery.
    static func check(_ url: URL, policy: WebhookPolicy) throws(WebhookURLError) {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty else {
            throw .malformed(url.absoluteString)
        }
        guard let addresses = AddressPolicy.resolve(host), !addresses.isEmpty else { throw .unresolvable(host: host) }
        var allLoopback = true
        for a in addresses {
            switch AddressPolicy.kind(a) {
            case .loopback:
                if !policy.allowLoopback { throw .forbiddenAddress(host: host, address: a) }
            case .privateRange:
                allLoopback = false
                if !policy.allowPrivateAddresses { throw .forbiddenAddress(host: host, address: a) }
            case .publicAddress:
                allLoopback = false
            }
        }
        if scheme == "http", !(allLoopback || policy.allowPrivateAddresses) { throw .insecure(url.absoluteString) }
    }
}

/// Delivers webhooks with Foundation's URL loading; redirects are not followed (a redirect
/// could point anywhere).
public struct URLSessionWebhookSender: WebhookSender {
    /// Makes a sender.
    public init() {}

    public func post(_ url: URL, body: Data, headers: [String: String], timeout: Duration) async -> Bool {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: TimeInterval(timeout.components.seconds))
        request.httpMethod = "POST"
        request.httpBody = body
        for (k, v) in headers { request.setValue(v, forHTTPHeaderField: k) }
        let delegate = NoRedirects()
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            session.dataTask(with: request) { _, response, error in
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                continuation.resume(returning: error == nil && (200..<300).contains(status))
            }.resume()
        }
    }
}

/// Refuses every redirect.
private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
