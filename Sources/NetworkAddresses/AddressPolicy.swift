/// Which kinds of address an outbound request may reach. Global addresses always; loopback and
/// private networks only when the operator (or a test) says so; special-purpose never.
public struct AddressPolicy: Sendable, Hashable {
    /// Whether this machine (127.0.0.0/8, ::1) may be reached.
    public var allowLoopback: Bool
    /// Whether private networks (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7…) may be reached.
    public var allowPrivateUse: Bool

    /// Makes a policy; the default reaches global addresses only.
    public init(allowLoopback: Bool = false, allowPrivateUse: Bool = false) {
        self.allowLoopback = allowLoopback
        self.allowPrivateUse = allowPrivateUse
    }

    /// Whether an address of this class may be reached.
    public func permits(_ classification: AddressClassification) -> Bool {
        switch classification.kind {
        case .global: return true
        case .loopback: return allowLoopback
        case .privateUse: return allowPrivateUse
        case .special: return false
        }
    }
}
