#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv6 address as the 128 bits a socket connects to; prefixes and embedded IPv4 addresses
/// are read from the bits, never from the text.
public struct IPv6Address: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The address, most significant byte first.
    public let value: UInt128

    /// The address with this numeric value.
    public init(_ value: UInt128) { self.value = value }

    /// The address from its sixteen bytes in network order (as in `sockaddr_in6.sin6_addr`).
    public init(bytes: some Collection<UInt8>) {
        precondition(bytes.count == 16, "an IPv6 address has 16 bytes")
        self.value = bytes.reduce(0) { $0 << 8 | UInt128($1) }
    }

    /// Parses the textual form (`inet_pton`), without brackets or a zone.
    public init?(_ text: String) {
        var raw = in6_addr()
        guard inet_pton(AF_INET6, text, &raw) == 1 else { return nil }
        self.init(bytes: withUnsafeBytes(of: raw) { Array($0) })
    }

    /// The sixteen bytes in network order.
    public var bytes: [UInt8] { (0..<16).map { UInt8(truncatingIfNeeded: value >> (8 * (15 - $0))) } }

    /// The IPv4 address in the low 32 bits (IPv4-mapped, IPv4-compatible, NAT64 /96).
    public var low32: IPv4Address { IPv4Address(UInt32(truncatingIfNeeded: value)) }

    public var description: String {
        var raw = in6_addr()
        withUnsafeMutableBytes(of: &raw) { buffer in
            for (i, b) in bytes.enumerated() { buffer[i] = b }
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public static func < (a: IPv6Address, b: IPv6Address) -> Bool { a.value < b.value }
}
