import Foundation
import NetworkAddresses
import OutboundHTTP

/// HTTP to one provider: the pinned outbound client (addresses checked, bodies capped), retries
/// for 429 and 5xx, and the rule that the bearer token only goes to the FHIR base's origin.
struct ProviderHTTP: Sendable {
    let client: PinnedHTTPClient
    let origin: ProviderOrigin
    let retry: RetryPolicy

    /// The largest page accepted (a `$everything` page can be large).
    static let maxResponseBytes = 64 << 20

    init(base: URL, allowLoopback: Bool, retry: RetryPolicy, timeout: Duration = .seconds(60)) throws(ProviderSyncError) {
        guard let origin = ProviderOrigin(base) else { throw .invalidBase(base.absoluteString, reason: "not an http(s) URL with a host") }
        self.origin = origin
        self.retry = retry
        let policy = OutboundPolicy(
            addresses: AddressPolicy(allowLoopback: allowLoopback), timeout: timeout, maxResponseBytes: Self.maxResponseBytes, maxRedirects: 0)
        self.client = PinnedHTTPClient(policy: policy)
    }

    /// GETs a URL, retrying 429 and 5xx; with a token, only on the provider's origin.
    func get(_ url: URL, bearer: String?, accept: String = "application/fhir+json") async throws(ProviderSyncError) -> OutboundResponse {
        // `handling=strict`: a server must refuse a search parameter it does not know rather
        // than ignore it (an ignored `patient` would answer every patient's records).
        var headers = [(name: "Accept", value: accept), (name: "Prefer", value: "handling=strict")]
        if let bearer {
            guard origin.holds(url) else { throw .foreignLink(url.absoluteString) }
            headers.append((name: "Authorization", value: "Bearer " + bearer))
        }
        var attempt = 1
        while true {
            let response: OutboundResponse
            do { response = try await client.get(url, headers: headers) } catch {
                if error == .cancelled { throw .network(url: url.absoluteString, error) }
                // A dropped connection is retried like a 503; a refused address is not.
                guard case .connectionFailed = error, attempt < retry.maxAttempts else { throw .network(url: url.absoluteString, error) }
                try await pause(retry.delay(after: 503, attempt: attempt, retryAfter: nil), url)
                attempt += 1
                continue
            }
            guard RetryPolicy.retries(response.status), attempt < retry.maxAttempts else { return response }
            try await pause(retry.delay(after: response.status, attempt: attempt, retryAfter: response.header("Retry-After")), url)
            attempt += 1
        }
    }

    /// POSTs a form (the token endpoint); never retried: a code is single use.
    func postForm(_ url: URL, fields: [(String, String)], headers: [(name: String, value: String)] = []) async throws(ProviderSyncError) -> OutboundResponse {
        let body = Data(fields.map { URL.formEncode($0.0) + "=" + URL.formEncode($0.1) }.joined(separator: "&").utf8)
        var all = headers
        all.append((name: "Content-Type", value: "application/x-www-form-urlencoded"))
        all.append((name: "Accept", value: "application/json"))
        do { return try await client.post(url, body: body, headers: all) } catch { throw .network(url: url.absoluteString, error) }
    }

    private func pause(_ delay: Duration, _ url: URL) async throws(ProviderSyncError) {
        do { try await Task.sleep(for: delay) } catch { throw .network(url: url.absoluteString, .cancelled) }
    }
}
