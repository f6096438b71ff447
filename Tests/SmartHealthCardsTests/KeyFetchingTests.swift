import FHIR
import Foundation
import JOSE
import NetworkAddresses
import OutboundHTTP
import SmartHealthCards
import TestSupport
import Testing
import VerifiableRecords

/// Key and revocation-list fetching against a real HTTP server on 127.0.0.1.
@Suite(.serialized) struct KeyFetchingTests {
    let server: IssuerServer
    /// For answers that must arrive: a deadline a busy machine cannot outlast.
    let loopback = FetchPolicy(timeout: .seconds(30), maxBytes: 256 << 10, allowLoopback: true)
    /// For the routes that never answer in time: their tests wait out this deadline.
    let impatient = FetchPolicy(timeout: .seconds(2), maxBytes: 256 << 10, allowLoopback: true)

    init() throws {
        server = try IssuerServer(serving: Spec.issuerDirectory)
    }

    func source(_ policy: FetchPolicy) -> WellKnownKeySource { WellKnownKeySource(fetcher: PinnedHTTPFetcher(policy: policy)) }

    @Test func fetchesAnIssuersKeysAndRevocationList() async throws {
        let set = try #require(try await source(loopback).keySet(issuer: server.url("issuer")))
        #expect(set.keys.compactMap(\.keyID).sorted() == [Spec.kidCRL, Spec.kidX5C].sorted())
        let list = try #require(try await source(loopback).revocationList(issuer: server.url("issuer"), keyID: Spec.kidCRL))
        #expect(list.counter == 1)
        #expect(list.entries.contains { $0.rid == "vwAjHdarZuc" && $0.timestamp == 1_687_450_765 })
    }

    @Test func verifiesACardWhoseIssuerIsServedLocally() async throws {
        var forge = try CardForge()
        forge.payload["iss"] = .string(server.url("issuer"))
        let jws = try forge.jws()
        var options = SmartHealthCardVerifier.Options()
        options.allowLoopbackIssuers = true
        let verifier = SmartHealthCardVerifier(keys: CachingKeySource(source(loopback)), options: options)
        let report = await verifier.verify(jws: jws, at: Spec.afterSigning)
        #expect(report.isValid, "\(report.errors)")
        #expect(report.checks.contains { $0.name.hasPrefix("revocation") && $0.passed == true })
    }

    @Test func timesOutASlowServer() async throws {
        let start = ContinuousClock.now
        await #expect(throws: KeySourceError.unavailable("\(server.url("slow"))/.well-known/jwks.json: \(FetchError.timedOut(after: .seconds(2)))")) {
            try await source(impatient).keySet(issuer: server.url("slow"))
        }
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func timesOutASlowDrip() async throws {
        await #expect { try await source(impatient).keySet(issuer: server.url("drip")) } throws: { error in
            "\(error)".contains("no complete answer")
        }
    }

    @Test func capsAHugeResponse() async throws {
        // The generous deadline: the cap, not the clock, must stop these.
        for route in ["huge", "huge-declared"] {
            await #expect { try await source(loopback).keySet(issuer: server.url(route)) } throws: { error in
                "\(error)".contains(FetchError.tooLarge(limit: 256 << 10).description)
            }
        }
    }

    @Test func reportsA404() async throws {
        await #expect { try await source(loopback).keySet(issuer: server.url("missing")) } throws: { error in
            "\(error)".contains("HTTP status 404")
        }
    }

    @Test func refusesLoopbackUnlessAllowed() async throws {
        let strict = FetchPolicy(timeout: .seconds(2))
        await #expect { try await source(strict).keySet(issuer: server.url("issuer")) } throws: { error in
            "\(error)".contains("not a public address")
        }
        // A name that resolves to loopback is refused the same way.
        await #expect { try await source(strict).keySet(issuer: "https://localhost:\(server.port)/issuer") } throws: { error in
            "\(error)".contains("not a public address")
        }
    }

    @Test func refusesPlainHTTPAndPrivateAddresses() async throws {
        let fetcher = PinnedHTTPFetcher(policy: .standard)
        await #expect(throws: FetchError.insecureURL("http://1.1.1.1/.well-known/jwks.json")) {
            try await fetcher.get(URL(string: "http://1.1.1.1/.well-known/jwks.json")!)
        }
        let privateUse = SpecialPurposeRegistry.ipv4.first { $0.prefix.description == "10.0.0.0/8" }
        await #expect(throws: FetchError.forbiddenAddress(host: "10.1.2.3", kind: .privateUse, range: privateUse)) {
            try await fetcher.get(URL(string: "https://10.1.2.3/.well-known/jwks.json")!)
        }
        let linkLocal = SpecialPurposeRegistry.ipv4.first { $0.prefix.description == "169.254.0.0/16" }
        await #expect(throws: FetchError.forbiddenAddress(host: "169.254.169.254", kind: .special, range: linkLocal)) {
            try await fetcher.get(URL(string: "https://169.254.169.254/latest")!)
        }
    }

    @Test func followsOnlySameHostRedirects() async throws {
        let fetcher = PinnedHTTPFetcher(policy: loopback)
        let same = try await fetcher.get(URL(string: server.url("redirect-same-host/.well-known/jwks.json"))!)
        #expect(try JWKSet(data: same).keys.count == 2)
        await #expect { try await fetcher.get(URL(string: server.url("redirect-other-host/.well-known/jwks.json"))!) } throws: { error in
            if case .redirectRefused = error as? FetchError { return true }
            return false
        }
        await #expect { try await fetcher.get(URL(string: server.url("redirect-private/x"))!) } throws: { error in
            if case .redirectRefused = error as? FetchError { return true }
            return false
        }
    }

    @Test func cachesKeySetsUntilTheyExpire() async throws {
        let counting = CountingSource(base: source(loopback))
        let t = Clock()
        let cache = CachingKeySource(counting, lifetime: 60, now: { t.now })
        _ = try await cache.keySet(issuer: server.url("issuer"))
        _ = try await cache.keySet(issuer: server.url("issuer"))
        #expect(counting.fetches == 1)
        t.advance(61)
        _ = try await cache.keySet(issuer: server.url("issuer"))
        #expect(counting.fetches == 2)
    }
}

final class Clock: @unchecked Sendable {
    private let lock = NSLock()
    private var value = Date(timeIntervalSince1970: 1_700_000_000)
    var now: Date { lock.lock(); defer { lock.unlock() }; return value }
    func advance(_ s: TimeInterval) { lock.lock(); value += s; lock.unlock() }
}

final class CountingSource: IssuerKeySource, @unchecked Sendable {
    private let base: any IssuerKeySource
    private let lock = NSLock()
    private var count = 0
    init(base: any IssuerKeySource) { self.base = base }
    var fetches: Int { lock.lock(); defer { lock.unlock() }; return count }
    func keySet(issuer: String) async throws(KeySourceError) -> JWKSet? {
        lock.withLock { count += 1 }
        return try await base.keySet(issuer: issuer)
    }
    func revocationList(issuer: String, keyID: String) async throws(KeySourceError) -> RevocationList? {
        try await base.revocationList(issuer: issuer, keyID: keyID)
    }
}
