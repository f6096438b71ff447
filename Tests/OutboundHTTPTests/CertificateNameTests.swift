import OutboundHTTP
import Testing

/// The host-name rule applied on top of NIOSSL's check: DNS names only, RFC 6125 wildcards.
@Suite struct CertificateNameTests {
    @Test(arguments: [
        ("issuer.test", "issuer.test", true), ("ISSUER.test.", "issuer.TEST", true), ("*.example.org", "keys.example.org", true),
        ("*.example.org", "example.org", false), ("*.example.org", "a.b.example.org", false), ("*.org", "example.org", false),
        ("k*.example.org", "keys.example.org", false), ("keys.*.org", "keys.example.org", false), ("issuer.test", "other.test", false),
        ("127.0.0.1", "localhost", false), ("", "issuer.test", false), ("issuer..test", "issuer..test", false),
    ])
    func matches(pattern: String, host: String, expected: Bool) {
        #expect(CertificateNames.matches(pattern: pattern, host: host) == expected)
    }
}
