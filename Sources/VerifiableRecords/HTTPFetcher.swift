import Foundation
import NetworkAddresses

/// Fetches files (issuer key sets, revocation lists, client key sets) over the network.
///
/// Every fetch goes through one of these, so timeouts, size caps, https-only and the refusal of
/// private addresses apply everywhere. The implementation lives outside this module (the
/// OutboundHTTP target's `PinnedHTTPFetcher`, which connects to the address it checked), so
/// the verifiers need no networking stack; tests inject their own.
public protocol HTTPFetcher: Sendable {
    /// The body of a successful (200) GET.
    func get(_ url: URL) async throws(FetchError) -> Data
}

/// Rules for network fetches.
public struct FetchPolicy: Sendable, Hashable {
    /// The longest a whole fetch may take, connection included.
    public var timeout: Duration
    /// The largest body accepted, in bytes.
    public var maxBytes: Int
    /// Whether loopback addresses (and plain http to them) are allowed — for tests only.
    public var allowLoopback: Bool
    /// Whether private, link-local and other non-public addresses are allowed.
    public var allowPrivateAddresses: Bool

    /// Makes a policy; the defaults are ``standard``: 5 s, 1 MiB, public https addresses only.
    public init(timeout: Duration = .seconds(5), maxBytes: Int = 1 << 20, allowLoopback: Bool = false, allowPrivateAddresses: Bool = false) {
        self.timeout = timeout
        self.maxBytes = maxBytes
        self.allowLoopback = allowLoopback
        self.allowPrivateAddresses = allowPrivateAddresses
    }

    /// 5 s, 1 MiB, public https addresses only.
    public static let standard = FetchPolicy()
}

/// Why a fetch failed.
public enum FetchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not an https URL (or http to an address the policy does not allow).
    case insecureURL(String)
    /// The host resolves to an address the policy forbids (loopback, private, link-local…);
    /// the registry range is kept, the address itself is not needed to act on it.
    case forbiddenAddress(host: String, kind: AddressKind, range: SpecialPurposeRange?)
    /// The host name could not be resolved.
    case unresolvable(host: String)
    /// The fetch took longer than the policy allows.
    case timedOut(after: Duration)
    /// The body is larger than the policy allows.
    case tooLarge(limit: Int)
    /// The server answered with a status other than 200.
    case status(Int)
    /// A redirect the policy refuses (another host, http, or a forbidden address).
    case redirectRefused(to: String)
    /// The connection failed.
    case transport(String)

    public var description: String {
        switch self {
        case .insecureURL(let u): return "refusing to fetch \(u): only https is allowed"
        case .forbiddenAddress(let h, let kind, let range):
            let place = range.map { " in \($0.prefix) (\($0.name))" } ?? ""
            return "refusing to fetch from \(h): it has a \(kind) address\(place), which is not a public address"
        case .unresolvable(let h): return "cannot resolve \(h)"
        case .timedOut(let d): return "no complete answer within \(d)"
        case .tooLarge(let limit): return "response larger than \(limit) bytes"
        case .status(let s): return "HTTP status \(s)"
        case .redirectRefused(let to): return "refusing a redirect to \(to)"
        case .transport(let m): return "connection failed: \(m)"
        }
    }
}
