import ByteEncodings
import Foundation
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// The source address a request is throttled by: an IPv4 address whole, an IPv6 address by
/// its /64 (one subscriber usually holds a whole /64, so finer keys would let one client
/// spread its failures over many).
enum ClientAddress {
    static func key(_ address: SocketAddress?) -> String {
        guard let address, let ip = address.ipAddress else { return "unknown" }
        var v6 = in6_addr()
        guard address.protocol == .inet6, inet_pton(AF_INET6, ip, &v6) == 1 else { return ip }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12..<16].map(String.init).joined(separator: ".")  // an IPv4-mapped address is that IPv4 address
        }
        return Hex.encode(bytes[0..<8]) + "::/64"
    }
}
