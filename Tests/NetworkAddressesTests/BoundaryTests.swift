import NetworkAddresses
import Testing

/// Addresses on both sides of every block's edges, and addresses that embed others.
@Suite struct BoundaryTests {
    static let ipv4: [(String, AddressKind)] = [
        ("0.0.0.0", .special), ("0.255.255.255", .special), ("1.0.0.0", .global), ("1.1.1.1", .global), ("8.8.8.8", .global),
        ("9.255.255.255", .global), ("10.0.0.0", .privateUse), ("10.255.255.255", .privateUse), ("11.0.0.0", .global),
        ("100.63.255.255", .global), ("100.64.0.0", .privateUse), ("100.127.255.255", .privateUse), ("100.128.0.0", .global),
        ("126.255.255.255", .global), ("127.0.0.0", .loopback), ("127.0.0.1", .loopback), ("127.255.255.255", .loopback), ("128.0.0.0", .global),
        ("169.253.255.255", .global), ("169.254.0.0", .special), ("169.254.169.254", .special), ("169.254.255.255", .special), ("169.255.0.0", .global),
        ("172.15.255.255", .global), ("172.16.0.0", .privateUse), ("172.31.255.255", .privateUse), ("172.32.0.0", .global),
        ("191.255.255.255", .global), ("192.0.0.0", .special), ("192.0.0.9", .special), ("192.0.0.255", .special), ("192.0.1.0", .global),
        ("192.0.2.0", .special), ("192.0.2.255", .special), ("192.0.3.0", .global),
        ("192.31.195.255", .global), ("192.31.196.0", .special), ("192.31.196.255", .special), ("192.31.197.0", .global),
        ("192.52.192.255", .global), ("192.52.193.0", .special), ("192.52.193.255", .special), ("192.52.194.0", .global),
        ("192.88.98.255", .global), ("192.88.99.0", .special), ("192.88.99.255", .special), ("192.88.100.0", .global),
        ("192.167.255.255", .global), ("192.168.0.0", .privateUse), ("192.168.255.255", .privateUse), ("192.169.0.0", .global),
        ("192.175.47.255", .global), ("192.175.48.0", .special), ("192.175.48.255", .special), ("192.175.49.0", .global),
        ("198.17.255.255", .global), ("198.18.0.0", .special), ("198.19.255.255", .special), ("198.20.0.0", .global),
        ("198.51.99.255", .global), ("198.51.100.0", .special), ("198.51.100.255", .special), ("198.51.101.0", .global),
        ("203.0.112.255", .global), ("203.0.113.0", .special), ("203.0.113.255", .special), ("203.0.114.0", .global),
        ("223.255.255.255", .global), ("224.0.0.0", .special), ("239.255.255.255", .special), ("240.0.0.0", .special),
        ("255.255.255.254", .special), ("255.255.255.255", .special),
    ]

    static let ipv6: [(String, AddressKind)] = [
        ("::", .special), ("::1", .loopback), ("::2", .special), ("::ffff", .special), ("::ffff:ffff", .special),
        // IPv4-compatible (deprecated): never public, whatever it embeds.
        ("::8.8.8.8", .special), ("::127.0.0.1", .special),
        // IPv4-mapped: exactly as allowed as the IPv4 address.
        ("::ffff:8.8.8.8", .global), ("::ffff:127.0.0.1", .loopback), ("::ffff:10.0.0.1", .privateUse), ("::ffff:169.254.169.254", .special),
        ("::fffe:ffff:ffff", .special), ("::1:0:0:0", .special),
        // NAT64 well-known prefix: a global IPv4 address passes, anything else is refused outright.
        ("64:ff9b::8.8.8.8", .global), ("64:ff9b::127.0.0.1", .special), ("64:ff9b::10.0.0.1", .special), ("64:ff9b::192.168.1.1", .special),
        ("64:ff9b::198.51.100.1", .special), ("64:ff9b::1:0:0", .special), ("64:ff9b:1::", .privateUse),
        ("64:ff9b:1:ffff:ffff:ffff:ffff:ffff", .privateUse), ("64:ff9b:2::", .special),
        ("100::", .special), ("100::ffff:ffff:ffff:ffff", .special), ("100:0:0:1::", .special),
        ("1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .special), ("2000::", .global),
        ("2001::", .special), ("2001:0:4136:e378:8000:63bf:3fff:fdd2", .special), ("2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", .special),
        ("2001:200::", .global), ("2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", .global), ("2001:db8::", .special),
        ("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", .special), ("2001:db9::", .global),
        // 6to4: a global IPv4 address passes, anything else is refused outright.
        ("2002:808:808::1", .global), ("2002:7f00:1::1", .special), ("2002:a00:1::1", .special), ("2002:c0a8:101::1", .special),
        ("2002:a9fe:a9fe::1", .special), ("2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .global), ("2003::", .global),
        ("2606:4700:4700::1111", .global), ("2620:4f:7fff:ffff:ffff:ffff:ffff:ffff", .global), ("2620:4f:8000::", .special),
        ("2620:4f:8000:ffff:ffff:ffff:ffff:ffff", .special), ("2620:4f:8001::", .global),
        ("3ffe:ffff::1", .global), ("3fff::", .special), ("3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", .special), ("3fff:1000::", .global),
        ("3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .global), ("4000::", .special), ("5f00::", .special),
        ("fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .special), ("fc00::", .privateUse), ("fd12:3456::1", .privateUse),
        ("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .privateUse), ("fe00::", .special), ("fe80::", .special), ("fe80::1", .special),
        ("febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .special), ("fec0::", .special), ("feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .special),
        ("ff00::", .special), ("ff02::1", .special), ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", .special),
    ]

    @Test(arguments: ipv4 + ipv6)
    func classifies(address: String, kind: AddressKind) throws {
        let ip = try #require(IPAddress(literal: address))
        #expect(AddressClassification(ip).kind == kind, "\(AddressClassification(ip))")
    }

    @Test func namesTheEntryThatDecided() throws {
        func range(_ text: String) throws -> String? { AddressClassification(try #require(IPAddress(literal: text))).range?.name }
        #expect(try range("10.1.2.3") == "Private-Use")
        #expect(try range("192.0.0.9") == "Port Control Protocol Anycast", "the most specific entry wins")
        #expect(try range("192.0.0.100") == "IETF Protocol Assignments")
        #expect(try range("2001::1") == "TEREDO")
        #expect(try range("2001:1::3") == "DNS-SD Service Registration Protocol Anycast")
        #expect(try range("2001:1::4") == "IETF Protocol Assignments")
        #expect(try range("::ffff:127.0.0.1") == "Loopback", "a mapped address is named by its IPv4 entry")
        #expect(try range("64:ff9b::a00:1") == "Private-Use", "NAT64 names the embedded entry that refused it")
        #expect(try range("64:ff9b::808:808") == "IPv4-IPv6 Translat.")
        #expect(try range("4000::") == "Reserved by IETF (outside 2000::/3)")
        #expect(try range("8.8.8.8") == nil)
        let sixToFour = AddressClassification(try #require(IPAddress(literal: "2002:c000:0201:1::1")))
        #expect(sixToFour.embedded == IPv4Address("192.0.2.1"))
        #expect(sixToFour.range?.name == "Documentation (TEST-NET-1)")
    }

    @Test func policyAllowsLoopbackAndPrivateOnlyWhenAskedAndSpecialNever() throws {
        let samples: [(String, AddressKind)] = [("8.8.8.8", .global), ("127.0.0.1", .loopback), ("10.0.0.1", .privateUse), ("169.254.169.254", .special)]
        let policies: [(AddressPolicy, Set<AddressKind>)] = [
            (AddressPolicy(), [.global]),
            (AddressPolicy(allowLoopback: true), [.global, .loopback]),
            (AddressPolicy(allowPrivateUse: true), [.global, .privateUse]),
            (AddressPolicy(allowLoopback: true, allowPrivateUse: true), [.global, .loopback, .privateUse]),
        ]
        for (policy, allowed) in policies {
            for (text, kind) in samples {
                let c = AddressClassification(try #require(IPAddress(literal: text)))
                #expect(c.kind == kind)
                #expect(policy.permits(c) == allowed.contains(kind), "\(policy) \(c)")
            }
        }
    }
}
