import Dispatch
import Synchronization
import Foundation
import NetworkAddresses
import OutboundHTTP
import Testing

/// The system resolver: answers in binary, gives up at the deadline, and blocks no
/// cooperative thread while it waits.
@Suite struct SystemResolverTests {
    @Test func resolvesLocalhostToLoopbackOnly() async throws {
        let addresses = try await SystemResolver().addresses(of: "localhost", timeout: .seconds(5))
        #expect(!addresses.isEmpty)
        #expect(addresses.allSatisfy { AddressClassification($0).kind == .loopback }, "\(addresses)")
    }

    @Test func lenientSpellingsAreClassifiedByWhatTheyResolveTo() async throws {
        // getaddrinfo reads these as 127.0.0.1; the client classifies the binary answer, not the text.
        for spelling in ["127.1", "2130706433", "0x7f.0.0.1"] {
            let addresses = try await SystemResolver().addresses(of: spelling, timeout: .seconds(5))
            #expect(addresses == [.v4(IPv4Address(0x7F00_0001))], "\(spelling)")
        }
        let client = PinnedHTTPClient(policy: OutboundPolicy())
        await #expect {
            try await client.vet(URL(string: "https://2130706433/")!)
        } throws: { error in
            guard case .forbiddenAddress(_, let c) = error as? OutboundError else { return false }
            return c.kind == .loopback
        }
    }

    @Test func givesUpAtTheDeadline() async throws {
        let release = DispatchSemaphore(value: 0)
        let resolver = SystemResolver { _ in
            release.wait()
            return [.v4(IPv4Address(0x0101_0101))]
        }
        // The lookup never returns until released: the timeout error is the deadline at work. (No
        // wall-clock bound: with the whole suite running, resuming may wait for a free thread.)
        await #expect(throws: OutboundError.timedOut(after: .milliseconds(300))) {
            try await resolver.addresses(of: "slow.test", timeout: .milliseconds(300))
        }
        release.signal()
    }

    /// More blocked lookups than there are cooperative threads: other tasks still run.
    @Test func blockedLookupsDoNotHoldCooperativeThreads() async throws {
        let release = DispatchSemaphore(value: 0)
        let resolver = SystemResolver { _ in
            release.wait()
            return [.v4(IPv4Address(0x0101_0101))]
        }
        let lookups = (0..<16).map { _ in Task { try await resolver.addresses(of: "blocked.test", timeout: .seconds(150)) } }
        // Were the cooperative threads held, the task below would wait for this release, 120 s on.
        let released = Mutex(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) {
            if !released.withLock({ $0 }) { for _ in 0..<16 { release.signal() } }
        }
        try await Task.sleep(for: .milliseconds(100))
        let start = ContinuousClock.now
        let answer = await Task.detached { (1...1000).reduce(0, +) }.value
        #expect(answer == 500_500)
        #expect(ContinuousClock.now - start < .seconds(100))
        released.withLock { $0 = true }
        for _ in lookups { release.signal() }
        for lookup in lookups { #expect(try await lookup.value == [.v4(IPv4Address(0x0101_0101))]) }
    }
}
