import Foundation
import NetworkAddresses
import VerifiableRecords

/// The ``HTTPFetcher`` over the pinned client: issuer key sets and revocation
/// lists are fetched from the address that was checked, never from a second resolution.
/// The verifiers stay free of NIO; the CLI and the server plug this in.
public struct PinnedHTTPFetcher: HTTPFetcher {
    /// The rules every fetch follows.
    public let policy: FetchPolicy
    private let client: PinnedHTTPClient

    /// Same-host redirects a fetch follows (issuers move files around; more is a loop).
    public static let maxRedirects = 5

    /// Makes a fetcher that follows up to ``maxRedirects`` same-origin redirects under `policy`.
    ///
    /// - Parameters:
    ///   - resolver: where names are resolved (the system's unless a test answers instead).
    ///   - trust: the certificate authorities https trusts.
    public init(policy: FetchPolicy = .standard, resolver: any HostResolver = SystemResolver(), trust: TLSTrust = .system) {
        self.policy = policy
        self.client = PinnedHTTPClient(
            policy: OutboundPolicy(
                addresses: AddressPolicy(allowLoopback: policy.allowLoopback, allowPrivateUse: policy.allowPrivateAddresses),
                timeout: policy.timeout, maxResponseBytes: policy.maxBytes, maxRedirects: Self.maxRedirects),
            resolver: resolver, trust: trust)
    }

    public func get(_ url: URL) async throws(FetchError) -> Data { try await getCacheable(url).body }

    /// The body of a successful (200) GET and its `Cache-Control` header, for callers that keep
    /// what they fetched.
    public func getCacheable(_ url: URL) async throws(FetchError) -> (body: Data, cacheControl: String?) {
        let response: OutboundResponse
        do {
            response = try await client.get(url, headers: [(name: "Accept", value: "application/json")])
        } catch {
            throw Self.fetchError(error)
        }
        guard response.status == 200 else { throw .status(response.status) }
        return (response.body, response.header("Cache-Control"))
    }

    /// The fetch error a person sees: the range a refused address lies in, not the address.
    static func fetchError(_ error: OutboundError) -> FetchError {
        switch error {
        case .invalidURL(let u), .insecureScheme(let u): return .insecureURL(u)
        case .unresolvable(let h): return .unresolvable(host: h)
        case .forbiddenAddress(let h, let c): return .forbiddenAddress(host: h, kind: c.kind, range: c.range)
        case .timedOut(let d): return .timedOut(after: d)
        case .tooLarge(let limit): return .tooLarge(limit: limit)
        case .redirectRefused(let to): return .redirectRefused(to: to)
        case .status(let s): return .status(s)
        case .resolverBusy, .connectionFailed, .tls, .malformedResponse, .cancelled: return .transport(error.description)
        }
    }
}
