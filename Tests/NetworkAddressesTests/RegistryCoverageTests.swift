import NetworkAddresses
import Testing

/// Every entry of the IANA special-purpose registries (and the address-space blocks added to
/// them), written out here independently of the table in the source: the table must hold
/// exactly these, and the first and last address of each must classify as stated.
@Suite struct RegistryCoverageTests {
    static let expectedIPv4: [(String, AddressKind)] = [
        ("0.0.0.0/8", .special), ("0.0.0.0/32", .special), ("10.0.0.0/8", .privateUse), ("100.64.0.0/10", .privateUse),
        ("127.0.0.0/8", .loopback), ("169.254.0.0/16", .special), ("172.16.0.0/12", .privateUse), ("192.0.0.0/24", .special),
        ("192.0.0.0/29", .special), ("192.0.0.8/32", .special), ("192.0.0.9/32", .special), ("192.0.0.10/32", .special),
        ("192.0.0.170/32", .special), ("192.0.0.171/32", .special), ("192.0.2.0/24", .special), ("192.31.196.0/24", .special),
        ("192.52.193.0/24", .special), ("192.88.99.0/24", .special), ("192.168.0.0/16", .privateUse), ("192.175.48.0/24", .special),
        ("198.18.0.0/15", .special), ("198.51.100.0/24", .special), ("203.0.113.0/24", .special), ("224.0.0.0/4", .special),
        ("240.0.0.0/4", .special), ("255.255.255.255/32", .special),
    ]

    /// IPv6 entries whose own kind decides (the embedding blocks are tested with their contents).
    static let expectedIPv6: [(String, AddressKind)] = [
        ("::/128", .special), ("::1/128", .loopback), ("::/96", .special), ("64:ff9b:1::/48", .privateUse), ("100::/64", .special),
        ("2001::/23", .special), ("2001::/32", .special), ("2001:1::1/128", .special), ("2001:1::2/128", .special), ("2001:1::3/128", .special),
        ("2001:2::/48", .special), ("2001:3::/32", .special), ("2001:4:112::/48", .special), ("2001:10::/28", .special),
        ("2001:20::/28", .special), ("2001:30::/28", .special), ("2001:db8::/32", .special), ("2620:4f:8000::/48", .special),
        ("3fff::/20", .special), ("5f00::/16", .special), ("fc00::/7", .privateUse), ("fe80::/10", .special), ("fec0::/10", .special),
        ("ff00::/8", .special),
    ]

    static let embeddingIPv6: [(String, SpecialPurposeRange.Embedding)] = [
        ("::ffff:0:0/96", .ipv4Mapped), ("64:ff9b::/96", .nat64WellKnown), ("2002::/16", .sixToFour),
    ]

    @Test func theTablesHoldExactlyTheRegistryEntries() {
        // Compared as parsed prefixes: the text of `::ffff:0:0` differs between spellings.
        #expect(SpecialPurposeRegistry.ipv4.map(\.prefix) == Self.expectedIPv4.map { AddressPrefix($0.0)! })
        let v6 = Set(SpecialPurposeRegistry.ipv6.map(\.prefix))
        #expect(v6 == Set((Self.expectedIPv6.map(\.0) + Self.embeddingIPv6.map(\.0)).map { AddressPrefix($0)! }))
        #expect(SpecialPurposeRegistry.ipv6.count == Self.expectedIPv6.count + Self.embeddingIPv6.count)
        for (prefix, embedding) in Self.embeddingIPv6 {
            #expect(SpecialPurposeRegistry.ipv6.first { $0.prefix == AddressPrefix(prefix) }?.embedding == embedding, "\(prefix)")
        }
    }

    @Test(arguments: expectedIPv4 + expectedIPv6)
    func firstAndLastAddressOfEachEntry(prefix: String, kind: AddressKind) throws {
        let block = try #require(AddressPrefix(prefix))
        for address in [block.first, block.last] {
            let c = AddressClassification(address)
            #expect(c.kind == kind, "\(c)")
            // The deciding entry is this one or a more specific one inside it.
            let range = try #require(c.range, "\(address) names no registry entry")
            #expect(range.prefix.length >= block.length && block.contains(range.prefix.first), "\(c)")
        }
    }

    @Test func parsingIsStrict() {
        #expect(AddressPrefix("10.0.0.1/8") == nil, "host bits set")
        #expect(AddressPrefix("10.0.0.0/33") == nil)
        #expect(AddressPrefix("::/129") == nil)
        #expect(AddressPrefix("2001:db8::/32")?.length == 32)
        // Lenient IPv4 spellings are not literals: they go to the resolver, whose binary answer is classified.
        for lenient in ["127.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1", "127.0.0.1.", "localhost", "[127.0.0.1]x"] {
            #expect(IPAddress(literal: lenient) == nil, "\(lenient)")
        }
        #expect(IPAddress(literal: "[::1]") == .v6(IPv6Address(1)))
        #expect(IPAddress(literal: "192.0.2.1") == .v4(IPv4Address(0xC000_0201)))
    }

    @Test func binaryAndTextAgree() {
        #expect(IPv4Address(bytes: [203, 0, 113, 7]).description == "203.0.113.7")
        #expect(IPv6Address(bytes: [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1]).description == "2001:db8::1")
        #expect(IPv6Address("::ffff:10.1.2.3")?.low32 == IPv4Address("10.1.2.3"))
        #expect(IPAddress(literal: "::ffff:10.1.2.3")?.unmapped == IPAddress(literal: "10.1.2.3"))
        #expect(IPAddress(literal: "64:ff9b::10.1.2.3")?.unmapped == IPAddress(literal: "64:ff9b::10.1.2.3"), "only mapped addresses unmap")
    }
}
