import NetworkAddresses
import OutboundHTTP

extension WebhookPolicy {
    /// The largest answer a receiver may send back; only its status matters.
    public static let maxResponseBytes = 64 * 1024

    /// The outbound rules one delivery (and one registration check) follows: the addresses
    /// this policy allows, its timeout, a small answer, and no redirects.
    public var outbound: OutboundPolicy {
        OutboundPolicy(
            addresses: AddressPolicy(allowLoopback: allowLoopback, allowPrivateUse: allowPrivateAddresses), timeout: timeout,
            maxResponseBytes: Self.maxResponseBytes, maxRedirects: 0)
    }
}
