/// An address a connection can be made to: what the resolver answered, in binary.
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    case v4(IPv4Address)
    case v6(IPv6Address)

    /// Parses a numeric host as it appears in a URL: `192.0.2.1`, `2001:db8::1` or `[2001:db8::1]`.
    /// Names (and lenient IPv4 spellings) give `nil`: they go through the resolver.
    public init?(literal host: String) {
        var text = Substring(host)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let v4 = IPv4Address(String(text)) {
            self = .v4(v4)
        } else if let v6 = IPv6Address(String(text)) {
            self = .v6(v6)
        } else {
            return nil
        }
    }

    /// An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as the IPv4 address it stands for, so a
    /// connection goes out as IPv4 to exactly the address that was classified.
    public var unmapped: IPAddress {
        if case .v6(let a) = self, a.value >> 32 == 0xFFFF { return .v4(a.low32) }
        return self
    }

    public var description: String {
        switch self {
        case .v4(let a): return a.description
        case .v6(let a): return a.description
        }
    }
}
