import Foundation
import OutboundHTTP

/// What delivers a webhook: one POST to the URL an app registered. Injectable, so tests can
/// watch deliveries and fail them on purpose.
///
/// The sender is the part that connects, so it is the part that checks addresses: an
/// implementation resolves the host once, refuses it unless every address satisfies the
/// policy, and connects to an address it checked (``PinnedWebhookSender`` does). Checking
/// anywhere else would leave a second resolution between the check and the connection.
public protocol WebhookSender: Sendable {
    /// Delivers a JSON body with headers; returns once the receiver answered 2xx within the
    /// policy's timeout, and throws why not otherwise (the reason goes to the server's log only).
    func post(_ url: URL, body: Data, headers: [String: String], policy: WebhookPolicy) async throws(OutboundError)
}

/// Delivers webhooks with the pinned client: resolved once, every address checked, the
/// connection made to a checked address, TLS verified against the host name, no redirects.
public struct PinnedWebhookSender: WebhookSender {
    private let resolver: any HostResolver
    private let trust: TLSTrust

    /// Makes a sender.
    ///
    /// - Parameters:
    ///   - resolver: where names are resolved (the system's unless a test answers instead).
    ///   - trust: the certificate authorities https trusts.
    public init(resolver: any HostResolver = SystemResolver(), trust: TLSTrust = .system) {
        self.resolver = resolver
        self.trust = trust
    }

    public func post(_ url: URL, body: Data, headers: [String: String], policy: WebhookPolicy) async throws(OutboundError) {
        let client = PinnedHTTPClient(policy: policy.outbound, resolver: resolver, trust: trust)
        let fields = headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        let response = try await client.post(url, body: body, headers: fields)
        guard (200..<300).contains(response.status) else { throw .status(response.status) }
    }
}
