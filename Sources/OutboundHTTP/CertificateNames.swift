import X509

/// The host-name check TLS needs here. NIOSSL accepts a certificate whose IP address entry
/// matches the address connected to, even when a host name was asked for; with the address
/// chosen by a resolver an attacker may control, that would let any certificate for the
/// attacker's own address stand in for the host. So, for a host name, only a DNS name in the
/// certificate counts (RFC 6125: exact, or one left-most `*` label; no common-name fallback).
package enum CertificateNames {
    /// Whether the DER leaf certificate names the host in a DNS subjectAltName.
    package static func leaf(_ der: [UInt8], names host: String) -> Bool {
        guard let certificate = try? Certificate(derEncoded: der), let names = try? certificate.extensions.subjectAlternativeNames else { return false }
        return names.contains { name in
            if case .dnsName(let pattern) = name { return matches(pattern: pattern, host: host) }
            return false
        }
    }

    /// RFC 6125 §6.4: case-insensitive, trailing dots ignored, a wildcard only as the whole
    /// left-most label and standing for exactly one label.
    package static func matches(pattern: String, host: String) -> Bool {
        let p = Array(trimmed(pattern).split(separator: ".", omittingEmptySubsequences: false))
        let h = Array(trimmed(host).split(separator: ".", omittingEmptySubsequences: false))
        guard p.count == h.count, !p.contains(where: \.isEmpty), !h.contains(where: \.isEmpty) else { return false }
        if p[0] == "*" {
            return p.count >= 3 && p.dropFirst() == h.dropFirst()
        }
        return p == h
    }

    private static func trimmed(_ name: String) -> String {
        var text = name.lowercased()
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
