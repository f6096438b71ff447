/// What an outbound request may do with an address: the registries' many entries reduced to
/// the four answers a destination policy needs.
public enum AddressKind: Sendable, Hashable, CustomStringConvertible {
    /// Reachable on the Internet: always allowed.
    case global
    /// This machine (127.0.0.0/8, ::1): allowed only when a policy says so (tests, a receiver
    /// on the same machine), and kept apart from private networks for that reason.
    case loopback
    /// Private networks (RFC 1918, shared address space, unique-local, local-use NAT64):
    /// allowed only when a policy says so.
    case privateUse
    /// Never a destination: unspecified, link-local (cloud metadata lives there), documentation,
    /// benchmarking, multicast, broadcast, reserved, protocol assignments, deprecated forms
    /// and tunnels that embed other addresses.
    case special

    public var description: String {
        switch self {
        case .global: return "global"
        case .loopback: return "loopback"
        case .privateUse: return "private-use"
        case .special: return "special-purpose"
        }
    }
}
