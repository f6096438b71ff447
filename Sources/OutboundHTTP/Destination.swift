import Foundation
import NetworkAddresses

/// A URL's origin after its one resolution: every address it has, each already checked
/// against the policy. Connections go to these addresses and nowhere else, so a name that
/// answers differently a moment later (DNS rebinding) changes nothing.
public struct Destination: Sendable, Equatable {
    /// The two schemes an outbound request may use.
    public enum Scheme: String, Sendable {
        case http, https
    }

    /// The URL's scheme: whether connections to ``addresses`` use TLS.
    public let scheme: Scheme
    /// The host as written in the URL (lowercased, IPv6 without brackets).
    public let host: String
    /// The port (the scheme's default when the URL gives none).
    public let port: Int
    /// The checked addresses, in the order connections try them.
    public let addresses: [IPAddress]
    /// Whether the URL named an address rather than a host name (then there is no SNI, and
    /// the certificate must name the address).
    public let isLiteral: Bool

    /// The name TLS sends as SNI and checks the certificate against; `nil` for a literal address.
    var serverName: String? { isLiteral ? nil : host }

    /// The `Host` header: the host, bracketed if IPv6, with the port unless it is the default.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (scheme == .https ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// Whether a URL has this destination's scheme, host and port.
    func hasOrigin(of url: URL) -> Bool {
        guard let (scheme, host, port) = try? Self.origin(of: url) else { return false }
        return scheme == self.scheme && host == self.host && port == self.port
    }

    /// Resolves the URL's host once (a literal address is not resolved), checks every address
    /// against the policy, and requires https unless every address is loopback or private.
    public static func vet(_ url: URL, policy: AddressPolicy, resolver: any HostResolver, timeout: Duration) async throws(OutboundError) -> Destination {
        let (scheme, host, port) = try origin(of: url)
        let literal = IPAddress(literal: host)
        let found: [IPAddress]
        if let literal { found = [literal] } else { found = try await resolver.addresses(of: host, timeout: timeout) }
        guard !found.isEmpty else { throw .unresolvable(host: host) }
        let classes = found.map(AddressClassification.init)
        if let refused = classes.first(where: { !policy.permits($0) }) { throw .forbiddenAddress(host: host, classification: refused) }
        if scheme == .http, classes.contains(where: { $0.kind == .global }) { throw .insecureScheme(url: url.absoluteString) }
        return Destination(scheme: scheme, host: host, port: port, addresses: found.map(\.unmapped), isLiteral: literal != nil)
    }

    /// The scheme, host and port of an absolute http(s) URL.
    static func origin(of url: URL) throws(OutboundError) -> (Scheme, String, Int) {
        guard let scheme = url.scheme.flatMap({ Scheme(rawValue: $0.lowercased()) }), var host = url.host, !host.isEmpty else {
            throw .invalidURL(url.absoluteString)
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = url.port ?? (scheme == .https ? 443 : 80)
        guard (1...65535).contains(port) else { throw .invalidURL(url.absoluteString) }
        return (scheme, host.lowercased(), port)
    }
}
