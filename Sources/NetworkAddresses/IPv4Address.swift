#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 address as the 32 bits a socket connects to, so classification never depends on
/// how a name or a literal was spelled (`127.1`, `0x7f000001`, `2130706433` are all 127.0.0.1
/// to the resolver).
public struct IPv4Address: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The address, most significant byte first (network order read as a number).
    public let value: UInt32

    /// The address with this numeric value.
    public init(_ value: UInt32) { self.value = value }

    /// The address from its four bytes in network order (as in `sockaddr_in.sin_addr`).
    public init(bytes: some Collection<UInt8>) {
        precondition(bytes.count == 4, "an IPv4 address has 4 bytes")
        self.value = bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Parses the strict dotted-quad form only (`inet_pton`): the lenient forms `getaddrinfo`
    /// accepts are left to the resolver, whose binary answer is what gets classified.
    public init?(_ text: String) {
        var raw = in_addr()
        guard inet_pton(AF_INET, text, &raw) == 1 else { return nil }
        self.init(bytes: withUnsafeBytes(of: raw.s_addr) { Array($0) })
    }

    /// The four bytes in network order.
    public var bytes: [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    public var description: String { bytes.map(String.init).joined(separator: ".") }

    public static func < (a: IPv4Address, b: IPv4Address) -> Bool { a.value < b.value }
}
