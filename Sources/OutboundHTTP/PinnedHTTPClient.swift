import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NetworkAddresses

/// HTTP/1.1 client for requests to addresses an outsider chose (issuer key sets, webhooks).
///
/// Each request resolves its host once, off the cooperative thread pool and within the
/// deadline; checks every address against the policy; then connects to a checked address
/// itself (TLS still verifies the certificate against the host name). Nothing resolves the
/// name again, so the address checked is the address reached. One connection per request
/// (`Connection: close`), bodies capped, one deadline for everything; GET follows only
/// same-origin redirects (to the same checked addresses), POST none.
public struct PinnedHTTPClient: Sendable {
    /// The rules every request follows.
    public let policy: OutboundPolicy
    private let resolver: any HostResolver
    private let tls: Result<NIOSSLContext, OutboundError>
    private let group: any EventLoopGroup

    /// Makes a client; nothing resolves or connects until the first request.
    ///
    /// - Parameters:
    ///   - resolver: where names are resolved (the system's unless a test answers instead).
    ///   - trust: the certificate authorities https trusts.
    public init(
        policy: OutboundPolicy, resolver: any HostResolver = SystemResolver(), trust: TLSTrust = .system,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.policy = policy
        self.resolver = resolver
        self.group = group
        self.tls = trust.context
    }

    /// Resolves and checks a URL's destination without connecting: what a registration
    /// (a webhook) is judged by before it is accepted.
    public func vet(_ url: URL) async throws(OutboundError) -> Destination {
        try await Destination.vet(url, policy: policy.addresses, resolver: resolver, timeout: policy.timeout)
    }

    /// GETs a URL; answers whatever status came back, after following at most
    /// ``OutboundPolicy/maxRedirects`` redirects to the same origin.
    public func get(_ url: URL, headers: [(name: String, value: String)] = []) async throws(OutboundError) -> OutboundResponse {
        let deadline = NIODeadline.now() + TimeAmount(policy.timeout)
        let destination = try await vet(url)
        var current = url
        var redirects = 0
        while true {
            let response = try await send(OutboundRequest(method: .get, url: current, headers: headers, body: nil), to: destination, deadline: deadline)
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.header("Location") else { return response }
            guard let next = URL(string: location, relativeTo: current)?.absoluteURL, destination.hasOrigin(of: next), redirects < policy.maxRedirects else {
                throw .redirectRefused(to: URL(string: location, relativeTo: current)?.absoluteString ?? location)
            }
            redirects += 1
            current = next
        }
    }

    /// POSTs a body; answers whatever status came back (redirects are not followed: a redirect
    /// could point anywhere, and a replayed POST is not the receiver's to ask for).
    public func post(_ url: URL, body: Data, headers: [(name: String, value: String)] = []) async throws(OutboundError) -> OutboundResponse {
        let deadline = NIODeadline.now() + TimeAmount(policy.timeout)
        let destination = try await vet(url)
        return try await send(OutboundRequest(method: .post, url: url, headers: headers, body: body), to: destination, deadline: deadline)
    }

    private func send(_ request: OutboundRequest, to destination: Destination, deadline: NIODeadline) async throws(OutboundError) -> OutboundResponse {
        let context: NIOSSLContext?
        switch destination.scheme {
        case .http: context = nil
        case .https: context = try tls.get()
        }
        return try await PinnedConnection.exchange(request, to: destination, tls: context, group: group, deadline: deadline, policy: policy)
    }
}
