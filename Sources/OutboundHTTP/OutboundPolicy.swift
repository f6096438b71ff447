import NetworkAddresses

/// The rules one outbound request follows. Loopback and private networks are off by default,
/// the deadline covers resolution, connection and the whole answer, and bodies are capped, so
/// a hostile or broken server costs a bounded amount.
public struct OutboundPolicy: Sendable, Hashable {
    /// Which kinds of address may be reached.
    public var addresses: AddressPolicy
    /// The longest the whole request may take, resolution included.
    public var timeout: Duration
    /// The largest response body accepted, in bytes.
    public var maxResponseBytes: Int
    /// How many same-origin redirects a GET follows (0: none). POSTs never follow redirects.
    public var maxRedirects: Int

    /// Makes a policy: global addresses only, 5 s, 1 MiB, no redirects.
    public init(addresses: AddressPolicy = AddressPolicy(), timeout: Duration = .seconds(5), maxResponseBytes: Int = 1 << 20, maxRedirects: Int = 0) {
        self.addresses = addresses
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.maxRedirects = maxRedirects
    }
}
