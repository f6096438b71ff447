import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Resolves host names and classifies addresses, so fetches (issuer keys, webhooks) never
/// reach private networks.
public enum AddressPolicy {
    /// What kind of address a numeric address is.
    public enum Kind: Sendable {
        /// 127.0.0.0/8 or ::1.
        case loopback
        /// Private, link-local, unspecified, multicast and other non-public ranges.
        case privateRange
        /// Anything else.
        case publicAddress
    }

    /// Every address a host resolves to (numeric hosts resolve to themselves).
    public static func resolve(_ host: String) -> [String]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return nil }
        defer { freeaddrinfo(first) }
        var out: [String] = []
        var p: UnsafeMutablePointer<addrinfo>? = first
        while let ai = p {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(ai.pointee.ai_addr, ai.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                out.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            p = ai.pointee.ai_next
        }
        return Array(Set(out)).sorted()
    }

    /// What kind of address a numeric address is.
    public static func kind(_ address: String) -> Kind {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            let b = withUnsafeBytes(of: v4.s_addr) { Array($0) }
            return kindV4(b)
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 {
            let b = withUnsafeBytes(of: v6) { Array($0) }
            if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
            if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF { return kindV4(Array(b[12..<16])) }
            if b.allSatisfy({ $0 == 0 }) { return .privateRange }
            if b[0] & 0xFE == 0xFC { return .privateRange }  // fc00::/7 unique local
            if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return .privateRange }  // fe80::/10 link-local
            if b[0] == 0xFF { return .privateRange }  // multicast
            return .publicAddress
        }
        return .privateRange
    }

    private static func kindV4(_ b: [UInt8]) -> Kind {
        switch (b[0], b[1]) {
        case (127, _): return .loopback
        case (0, _), (10, _), (169, 254), (192, 168), (255, _): return .privateRange
        case (172, 16...31), (100, 64...127), (198, 18...19): return .privateRange
        case (224...239, _): return .privateRange
        default: return .publicAddress
        }
    }
}
