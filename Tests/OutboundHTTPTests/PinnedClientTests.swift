import Foundation
import NetworkAddresses
import OutboundHTTP
import Testing

/// The pinned client against real servers on loopback addresses: one resolution, the checked
/// address reached, caps and deadlines kept.
@Suite(.serialized) struct PinnedClientTests {
    static let loopback = OutboundPolicy(addresses: AddressPolicy(allowLoopback: true), timeout: .seconds(5), maxResponseBytes: 64 * 1024, maxRedirects: 3)

    static func ok(_ body: String) -> @Sendable (TestHTTPServer.Request) -> TestHTTPServer.Reply {
        { request in
            switch request.uri {
            case "/redirect": return .respond(status: 302, headers: [("Location", "/ok")])
            case "/redirect-other": return .respond(status: 302, headers: [("Location", "http://elsewhere.test/ok")])
            case "/redirect-loop": return .respond(status: 307, headers: [("Location", "/redirect-loop")])
            case "/hang": return .hang
            case "/drip": return .drip
            case "/endless": return .endless
            case "/declare-huge": return .declareHuge
            case "/moved": return .respond(status: 307, headers: [("Location", "/ok")])
            default: return .respond(status: 200, body: body + (request.body.isEmpty ? "" : " " + request.body))
            }
        }
    }

    @Test func getsFromTheCheckedAddressWithTheHostHeaderAndConnectionClose() async throws {
        let server = try await TestHTTPServer(route: Self.ok("hello"))
        let resolver = ScriptedResolver(["issuer.test": [["127.0.0.1"]]])
        let client = PinnedHTTPClient(policy: Self.loopback, resolver: resolver)
        let response = try await client.get(URL(string: "http://issuer.test:\(server.port)/ok?x=1")!)
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello")
        let request = try #require(server.requests.first)
        #expect(request.uri == "/ok?x=1")
        #expect(request.header("Host") == "issuer.test:\(server.port)")
        #expect(request.header("Connection") == "close")
        try await server.stop()
    }

    /// A name that answers 127.0.0.1 and then 127.0.0.2: the client asks once and every
    /// request of the fetch, redirects included, goes to the first answer.
    @Test func connectsToTheAddressItCheckedAndResolvesOnce() async throws {
        let first = try await TestHTTPServer(host: "127.0.0.1", route: Self.ok("first"))
        let second = try await TestHTTPServer(host: "127.0.0.2", port: first.port, route: Self.ok("second"))
        let resolver = ScriptedResolver(["moving.test": [["127.0.0.1"], ["127.0.0.2"]]])
        let client = PinnedHTTPClient(policy: Self.loopback, resolver: resolver)
        let response = try await client.get(URL(string: "http://moving.test:\(first.port)/redirect")!)
        #expect(String(decoding: response.body, as: UTF8.self) == "first")
        #expect(resolver.calls == ["moving.test"])
        #expect(first.requests.map(\.uri) == ["/redirect", "/ok"])
        #expect(second.connections == 0)
        // A new request is a new resolution: the name has moved, and so does the request.
        let again = try await client.get(URL(string: "http://moving.test:\(first.port)/ok")!)
        #expect(String(decoding: again.body, as: UTF8.self) == "second")
        #expect(resolver.calls == ["moving.test", "moving.test"])
        try await first.stop()
        try await second.stop()
    }

    @Test func refusesLoopbackBeforeConnectingUnlessAllowed() async throws {
        let server = try await TestHTTPServer(route: Self.ok("never"))
        let client = PinnedHTTPClient(policy: OutboundPolicy(), resolver: ScriptedResolver(["local.test": [["127.0.0.1"]]]))
        for url in ["http://local.test:\(server.port)/ok", "https://local.test:\(server.port)/ok", "http://127.0.0.1:\(server.port)/ok", "http://[::ffff:127.0.0.1]:\(server.port)/ok"] {
            await #expect {
                try await client.get(URL(string: url)!)
            } throws: { error in
                guard case .forbiddenAddress(_, let c) = error as? OutboundError else { return false }
                return c.kind == .loopback
            }
        }
        #expect(server.connections == 0)
        try await server.stop()
    }

    /// Every special-purpose block, through the client: refused with the default policy;
    /// loopback and private blocks allowed only by their own switch, the rest never.
    @Test func refusesEverySpecialPurposeBlock() async throws {
        let everything = AddressPolicy(allowLoopback: true, allowPrivateUse: true)
        for entry in SpecialPurposeRegistry.ipv4 + SpecialPurposeRegistry.ipv6 where entry.embedding == .none {
            let address = entry.prefix.last.description
            let resolver = ScriptedResolver(["target.test": [[address]]])
            for (policy, shouldRefuse) in [(AddressPolicy(), true), (everything, entry.kind == .special)] {
                let client = PinnedHTTPClient(policy: OutboundPolicy(addresses: policy, timeout: .milliseconds(200)), resolver: resolver)
                do {
                    _ = try await client.vet(URL(string: "https://target.test/")!)
                    #expect(!shouldRefuse, "\(entry) was let through")
                } catch {
                    guard case .forbiddenAddress(let host, let c) = error else { Issue.record("\(entry): \(error)"); continue }
                    #expect(shouldRefuse, "\(entry) was refused")
                    #expect(host == "target.test" && c.kind == entry.kind, "\(c)")
                }
            }
        }
        // Embedded forms follow what they embed; NAT64 and 6to4 never carry loopback or private.
        for (address, allowed) in [("::ffff:127.0.0.1", true), ("64:ff9b::127.0.0.1", false), ("2002:7f00:1::1", false), ("::127.0.0.1", false)] {
            let client = PinnedHTTPClient(
                policy: OutboundPolicy(addresses: everything), resolver: ScriptedResolver(["target.test": [[address]]]))
            let vetted = try? await client.vet(URL(string: "https://target.test/")!)
            #expect((vetted != nil) == allowed, "\(address)")
        }
    }

    @Test func oneBadAddressRefusesTheName() async throws {
        let client = PinnedHTTPClient(policy: OutboundPolicy(), resolver: ScriptedResolver(["mixed.test": [["1.1.1.1", "10.0.0.1"]]]))
        await #expect {
            try await client.vet(URL(string: "https://mixed.test/")!)
        } throws: { error in
            guard case .forbiddenAddress(_, let c) = error as? OutboundError else { return false }
            return c.address == IPAddress(literal: "10.0.0.1")
        }
    }

    @Test func plainHTTPOnlyToLoopbackOrPrivateAddresses() async throws {
        let resolver = ScriptedResolver(["public.test": [["1.1.1.1"]], "lan.test": [["192.168.1.9"]]])
        let client = PinnedHTTPClient(policy: OutboundPolicy(addresses: AddressPolicy(allowPrivateUse: true)), resolver: resolver)
        await #expect(throws: OutboundError.insecureScheme(url: "http://public.test/x")) { try await client.vet(URL(string: "http://public.test/x")!) }
        #expect(try await client.vet(URL(string: "http://lan.test/x")!).addresses == [IPAddress(literal: "192.168.1.9")!])
        #expect(try await client.vet(URL(string: "https://public.test/x")!).addresses == [IPAddress(literal: "1.1.1.1")!])
        await #expect(throws: OutboundError.invalidURL("ftp://public.test/x")) { try await client.vet(URL(string: "ftp://public.test/x")!) }
    }

    @Test func capsTheBody() async throws {
        let server = try await TestHTTPServer(route: Self.ok("x"))
        var policy = Self.loopback
        policy.timeout = .seconds(30)
        let client = PinnedHTTPClient(policy: policy)
        for path in ["/endless", "/declare-huge"] {
            await #expect(throws: OutboundError.tooLarge(limit: 64 * 1024)) { try await client.get(URL(string: "http://127.0.0.1:\(server.port)\(path)")!) }
        }
        try await server.stop()
    }

    @Test func oneDeadlineForTheWholeRequest() async throws {
        let server = try await TestHTTPServer(route: Self.ok("x"))
        var policy = Self.loopback
        policy.timeout = .milliseconds(700)
        let client = PinnedHTTPClient(policy: policy)
        for path in ["/hang", "/drip"] {
            let start = ContinuousClock.now
            await #expect(throws: OutboundError.timedOut(after: .milliseconds(700))) { try await client.get(URL(string: "http://127.0.0.1:\(server.port)\(path)")!) }
            // The error says the deadline ended it; the bound is loose for a loaded CI machine.
            #expect(ContinuousClock.now - start < .seconds(30), "\(path)")
        }
        try await server.stop()
    }

    @Test func followsOnlyBoundedSameOriginRedirectsAndPostFollowsNone() async throws {
        let server = try await TestHTTPServer(route: Self.ok("done"))
        let client = PinnedHTTPClient(policy: Self.loopback, resolver: ScriptedResolver(["issuer.test": [["127.0.0.1"]], "elsewhere.test": [["127.0.0.1"]]]))
        let base = "http://issuer.test:\(server.port)"
        await #expect(throws: OutboundError.redirectRefused(to: "http://elsewhere.test/ok")) { try await client.get(URL(string: base + "/redirect-other")!) }
        await #expect(throws: OutboundError.redirectRefused(to: base + "/redirect-loop")) { try await client.get(URL(string: base + "/redirect-loop")!) }
        let posted = try await client.post(URL(string: base + "/moved")!, body: Data(#"{"a":1}"#.utf8), headers: [(name: "Content-Type", value: "application/json")])
        #expect(posted.status == 307)
        let post = try #require(server.requests.last)
        #expect(post.method == "POST" && post.body == #"{"a":1}"# && post.header("Content-Length") == "7")
        #expect(server.requests.filter { $0.uri == "/ok" }.isEmpty, "no redirect was followed")
        try await server.stop()
    }

    @Test func cancellingTheTaskEndsTheRequest() async throws {
        let server = try await TestHTTPServer(route: Self.ok("x"))
        // A deadline far beyond the test's wait: a busy machine may take seconds to cancel.
        var policy = Self.loopback
        policy.timeout = .seconds(120)
        let client = PinnedHTTPClient(policy: policy)
        let task = Task { try await client.get(URL(string: "http://127.0.0.1:\(server.port)/hang")!) }
        while server.requests.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        let start = ContinuousClock.now
        task.cancel()
        await #expect(throws: OutboundError.cancelled) { try await task.value }
        // `.cancelled`, not `.timedOut`, says cancellation ended it rather than the deadline.
        #expect(ContinuousClock.now - start < .seconds(60))
        try await server.stop()
    }
}
