/// A block of addresses (`10.0.0.0/8`, `2001:db8::/32`), compared bit by bit.
public enum AddressPrefix: Sendable, Hashable, CustomStringConvertible {
    case v4(IPv4Address, length: Int)
    case v6(IPv6Address, length: Int)

    /// Parses `address/length`; `nil` when either part is malformed or host bits are set.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let length = Int(parts[1]), let address = IPAddress(literal: String(parts[0])) else { return nil }
        switch address {
        case .v4(let a):
            guard (0...32).contains(length), a.value & ~Self.mask32(length) == 0 else { return nil }
            self = .v4(a, length: length)
        case .v6(let a):
            guard (0...128).contains(length), a.value & ~Self.mask128(length) == 0 else { return nil }
            self = .v6(a, length: length)
        }
    }

    /// The prefix length in bits.
    public var length: Int {
        switch self {
        case .v4(_, let n), .v6(_, let n): return n
        }
    }

    /// Whether the address lies in the block (an IPv4 address never lies in an IPv6 block).
    public func contains(_ address: IPAddress) -> Bool {
        switch (self, address) {
        case (.v4(let net, let n), .v4(let a)): return a.value & Self.mask32(n) == net.value
        case (.v6(let net, let n), .v6(let a)): return a.value & Self.mask128(n) == net.value
        default: return false
        }
    }

    /// The lowest address of the block.
    public var first: IPAddress {
        switch self {
        case .v4(let net, _): return .v4(net)
        case .v6(let net, _): return .v6(net)
        }
    }

    /// The highest address of the block.
    public var last: IPAddress {
        switch self {
        case .v4(let net, let n): return .v4(IPv4Address(net.value | ~Self.mask32(n)))
        case .v6(let net, let n): return .v6(IPv6Address(net.value | ~Self.mask128(n)))
        }
    }

    public var description: String { "\(first)/\(length)" }

    static func mask32(_ n: Int) -> UInt32 { n == 0 ? 0 : ~UInt32(0) << (32 - n) }
    static func mask128(_ n: Int) -> UInt128 { n == 0 ? 0 : ~UInt128(0) << (128 - n) }
}
