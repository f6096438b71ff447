/// The IANA IPv4 and IPv6 Special-Purpose Address Registries, entry by entry, plus the blocks
/// the address-space registries set apart (multicast, site-local, IPv4-compatible).
///
/// Sub-blocks are listed beside their parent: classification takes the longest match, so a
/// sub-block can only name an address more precisely, never let through what its parent refuses.
/// Registry entries whose addresses are "globally reachable" (AS112, AMT, anycast services,
/// ORCHIDv2, DRIP) are still `.special`: none of them is a web server an issuer or a webhook
/// receiver would use, and a request aimed there is a probe.
public enum SpecialPurposeRegistry {
    /// IPv4 entries (iana.org/assignments/iana-ipv4-special-registry, and 224.0.0.0/4).
    public static let ipv4: [SpecialPurposeRange] = [
        .init("0.0.0.0/8", "\"This network\"", "RFC 791", .special),
        .init("0.0.0.0/32", "\"This host on this network\"", "RFC 1122", .special),
        .init("10.0.0.0/8", "Private-Use", "RFC 1918", .privateUse),
        .init("100.64.0.0/10", "Shared Address Space", "RFC 6598", .privateUse),
        .init("127.0.0.0/8", "Loopback", "RFC 1122", .loopback),
        .init("169.254.0.0/16", "Link Local", "RFC 3927", .special),
        .init("172.16.0.0/12", "Private-Use", "RFC 1918", .privateUse),
        .init("192.0.0.0/24", "IETF Protocol Assignments", "RFC 6890", .special),
        .init("192.0.0.0/29", "IPv4 Service Continuity Prefix", "RFC 7335", .special),
        .init("192.0.0.8/32", "IPv4 dummy address", "RFC 7600", .special),
        .init("192.0.0.9/32", "Port Control Protocol Anycast", "RFC 7723", .special),
        .init("192.0.0.10/32", "Traversal Using Relays around NAT Anycast", "RFC 8155", .special),
        .init("192.0.0.170/32", "NAT64/DNS64 Discovery", "RFC 8880", .special),
        .init("192.0.0.171/32", "NAT64/DNS64 Discovery", "RFC 8880", .special),
        .init("192.0.2.0/24", "Documentation (TEST-NET-1)", "RFC 5737", .special),
        .init("192.31.196.0/24", "AS112-v4", "RFC 7535", .special),
        .init("192.52.193.0/24", "AMT", "RFC 7450", .special),
        .init("192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", "RFC 7526", .special),
        .init("192.168.0.0/16", "Private-Use", "RFC 1918", .privateUse),
        .init("192.175.48.0/24", "Direct Delegation AS112 Service", "RFC 7534", .special),
        .init("198.18.0.0/15", "Benchmarking", "RFC 2544", .special),
        .init("198.51.100.0/24", "Documentation (TEST-NET-2)", "RFC 5737", .special),
        .init("203.0.113.0/24", "Documentation (TEST-NET-3)", "RFC 5737", .special),
        .init("224.0.0.0/4", "Multicast", "RFC 5771", .special),
        .init("240.0.0.0/4", "Reserved", "RFC 1112", .special),
        .init("255.255.255.255/32", "Limited Broadcast", "RFC 919", .special),
    ]

    /// IPv6 entries (iana.org/assignments/iana-ipv6-special-registry, plus ::/96, fec0::/10
    /// and ff00::/8). Addresses outside 2000::/3 that match none of these are not allocated
    /// for unicast at all and are classified by ``outsideGlobalUnicast``.
    public static let ipv6: [SpecialPurposeRange] = [
        .init("::/128", "Unspecified Address", "RFC 4291", .special),
        .init("::1/128", "Loopback Address", "RFC 4291", .loopback),
        .init("::/96", "IPv4-Compatible IPv6 Address (deprecated)", "RFC 4291 §2.5.5.1", .special),
        .init("::ffff:0:0/96", "IPv4-mapped Address", "RFC 4291", .special, embedding: .ipv4Mapped),
        .init("64:ff9b::/96", "IPv4-IPv6 Translat.", "RFC 6052", .special, embedding: .nat64WellKnown),
        .init("64:ff9b:1::/48", "IPv4-IPv6 Translat. (local use)", "RFC 8215", .privateUse),
        .init("100::/64", "Discard-Only Address Block", "RFC 6666", .special),
        .init("2001::/23", "IETF Protocol Assignments", "RFC 2928", .special),
        .init("2001::/32", "TEREDO", "RFC 4380", .special),
        .init("2001:1::1/128", "Port Control Protocol Anycast", "RFC 7723", .special),
        .init("2001:1::2/128", "Traversal Using Relays around NAT Anycast", "RFC 8155", .special),
        .init("2001:1::3/128", "DNS-SD Service Registration Protocol Anycast", "RFC 9665", .special),
        .init("2001:2::/48", "Benchmarking", "RFC 5180", .special),
        .init("2001:3::/32", "AMT", "RFC 7450", .special),
        .init("2001:4:112::/48", "AS112-v6", "RFC 7535", .special),
        .init("2001:10::/28", "Deprecated (previously ORCHID)", "RFC 4843", .special),
        .init("2001:20::/28", "ORCHIDv2", "RFC 7343", .special),
        .init("2001:30::/28", "Drone Remote ID Protocol Entity Tags (DETs) Prefix", "RFC 9374", .special),
        .init("2001:db8::/32", "Documentation", "RFC 3849", .special),
        .init("2002::/16", "6to4", "RFC 3056", .special, embedding: .sixToFour),
        .init("2620:4f:8000::/48", "Direct Delegation AS112 Service", "RFC 7534", .special),
        .init("3fff::/20", "Documentation", "RFC 9637", .special),
        .init("5f00::/16", "Segment Routing (SRv6) SIDs", "RFC 9602", .special),
        .init("fc00::/7", "Unique-Local", "RFC 4193", .privateUse),
        .init("fe80::/10", "Link-Local Unicast", "RFC 4291", .special),
        .init("fec0::/10", "Site-Local Unicast (deprecated)", "RFC 3879", .special),
        .init("ff00::/8", "Multicast", "RFC 4291", .special),
    ]

    /// Where IPv6 unicast is allocated from; anything outside it (and not listed above) is
    /// IETF-reserved space no host answers from.
    public static let globalUnicast = AddressPrefix("2000::/3")!

    /// What an IPv6 address outside 2000::/3 that matches no entry is.
    public static let outsideGlobalUnicast = SpecialPurposeRange(
        "::/0", "Reserved by IETF (outside 2000::/3)", "RFC 4291 / IANA IPv6 Address Space", .special)

    /// The most specific entry holding the address, if any.
    public static func entry(for address: IPAddress) -> SpecialPurposeRange? {
        let table: [SpecialPurposeRange]
        switch address {
        case .v4: table = ipv4
        case .v6: table = ipv6
        }
        return table.filter { $0.prefix.contains(address) }.max { $0.prefix.length < $1.prefix.length }
    }
}
