import NetworkAddresses

/// Why an outbound request was refused or failed. The cases carry what the operator needs in
/// the log (including the refused address); code that answers an app or a person chooses what
/// to show: see ``publicSummary``.
public enum OutboundError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not an absolute http(s) URL with a host.
    case invalidURL(String)
    /// Plain http to a destination that has a global address: only https may leave the machine.
    case insecureScheme(url: String)
    /// The name did not resolve (or resolved to nothing usable).
    case unresolvable(host: String)
    /// Too many lookups are still running (hanging DNS); this one was not started.
    case resolverBusy(limit: Int)
    /// The host has an address the policy forbids; every address is checked, so one bad
    /// answer refuses the whole name.
    case forbiddenAddress(host: String, classification: AddressClassification)
    /// The whole request (resolution, connection, answer) took longer than allowed.
    case timedOut(after: Duration)
    /// The body is larger than allowed.
    case tooLarge(limit: Int)
    /// A redirect the policy refuses (another origin, another scheme, too many, or none allowed).
    case redirectRefused(to: String)
    /// No checked address accepted a connection.
    case connectionFailed(host: String, reason: String)
    /// The TLS handshake or the certificate check failed (untrusted chain, wrong host name).
    case tls(host: String, reason: String)
    /// The server answered, but not with the status the caller needed (a webhook's 2xx).
    case status(Int)
    /// The server broke HTTP (closed early, unparseable answer).
    case malformedResponse(host: String, reason: String)
    /// The task asking was cancelled.
    case cancelled

    public var description: String {
        switch self {
        case .invalidURL(let u): return "not an absolute http(s) URL: \(u)"
        case .insecureScheme(let u): return "refusing plain http to a public address: \(u) (use https)"
        case .unresolvable(let h): return "cannot resolve \(h)"
        case .resolverBusy(let limit): return "\(limit) name lookups are already running"
        case .forbiddenAddress(let h, let c): return "refusing \(h): \(c)"
        case .timedOut(let d): return "no complete answer within \(d)"
        case .tooLarge(let limit): return "response larger than \(limit) bytes"
        case .redirectRefused(let to): return "refusing a redirect to \(to)"
        case .connectionFailed(let h, let r): return "cannot connect to \(h): \(r)"
        case .tls(let h, let r): return "TLS with \(h) failed: \(r)"
        case .status(let s): return "HTTP status \(s)"
        case .malformedResponse(let h, let r): return "bad HTTP answer from \(h): \(r)"
        case .cancelled: return "cancelled"
        }
    }

    /// What may be said to someone who does not run this machine (an app registering a
    /// webhook): whether the target is refused or unreachable, never what a name resolves to.
    public var publicSummary: PublicSummary {
        switch self {
        case .invalidURL, .insecureScheme, .forbiddenAddress, .redirectRefused: return .notAllowed
        case .unresolvable, .resolverBusy, .timedOut, .tooLarge, .connectionFailed, .tls, .status, .malformedResponse, .cancelled: return .unreachable
        }
    }

    /// The two answers an outsider gets.
    public enum PublicSummary: Sendable, Equatable, CustomStringConvertible {
        /// The policy refuses the target.
        case notAllowed
        /// The target could not be reached.
        case unreachable

        public var description: String {
            switch self {
            case .notAllowed: return "not allowed"
            case .unreachable: return "cannot be reached"
            }
        }
    }
}
