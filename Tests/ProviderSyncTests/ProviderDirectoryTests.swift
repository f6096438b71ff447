import Foundation
import HealthStoreCore
import HealthStoreSQLite
import OutboundHTTP
import NetworkAddresses
import Testing
import TestSupport

@testable import ProviderSync

/// Adding providers: only https (or http to this machine, when allowed) carries a token; each
/// kind of access has what it needs; ids are stable slugs.
@Suite struct ProviderDirectoryTests {
    static func directory() async throws -> (ProviderDirectory, TemporaryDirectory) {
        let dir = TemporaryDirectory()
        let store = try await SQLiteHealthStore(path: dir.path("store.sqlite"))
        return (ProviderDirectory(store: store), dir)
    }

    @Test func basesAreHTTPSOrAllowedLoopback() async throws {
        let (d, dir) = try await Self.directory()
        _ = dir
        var new = ProviderDirectory.NewProvider(fhirBase: "https://fhir.General-Hospital.example/r4/")
        new.clientID = "c"
        let added = try await d.add(new)
        #expect(added.id == "fhir-general-hospital-example" && added.fhirBase == "https://fhir.General-Hospital.example/r4")
        #expect(added.status == .notConnected && added.scope == ProviderDirectory.defaultScope)
        await #expect(throws: ProviderSyncError.duplicateProvider("fhir-general-hospital-example")) { _ = try await d.add(new) }
        for (base, loopback) in [("http://fhir.example.org/r4", true), ("http://127.0.0.1:8080/fhir", false), ("ftp://x/y", true), ("https://h/fhir?x=1", true), ("not a url", true)] {
            var bad = ProviderDirectory.NewProvider(fhirBase: base)
            bad.clientID = "c"
            bad.allowLoopback = loopback
            bad.id = "x"
            await #expect(throws: ProviderSyncError.self, "\(base)") { _ = try await d.add(bad) }
        }
        var local = ProviderDirectory.NewProvider(fhirBase: "http://127.0.0.1:8080/fhir")
        local.name = "Local Test Server"
        local.clientID = "c"
        local.allowLoopback = true
        #expect(try await d.add(local).id == "local-test-server")
    }

    @Test func eachKindOfAccessHasWhatItNeeds() async throws {
        let (d, dir) = try await Self.directory()
        _ = dir
        var signIn = ProviderDirectory.NewProvider(fhirBase: "https://a.example/fhir")
        await #expect(throws: ProviderSyncError.self) { _ = try await d.add(signIn) }  // no client id
        signIn.clientID = "c"
        signIn.id = "bad id!"
        await #expect(throws: ProviderSyncError.self) { _ = try await d.add(signIn) }

        var held = ProviderDirectory.NewProvider(fhirBase: "https://b.example/fhir")
        held.heldToken = "t"
        await #expect(throws: ProviderSyncError.self) { _ = try await d.add(held) }  // no patient
        held.patientID = "p"
        let heldAdded = try await d.add(held)
        #expect(heldAdded.access == .heldToken && heldAdded.status == .connected && heldAdded.tokens?.accessToken == "t")

        var backend = ProviderDirectory.NewProvider(fhirBase: "https://c.example/fhir")
        backend.access = .backend
        backend.clientID = "svc"
        backend.patientID = "p"
        backend.client = .secret("s")
        await #expect(throws: ProviderSyncError.self) { _ = try await d.add(backend) }  // needs a key
        backend.client = .privateKey("not a key", keyID: nil)
        await #expect(throws: ProviderSyncError.self) { _ = try await d.add(backend) }
        #expect(try await d.list().map(\.id) == ["b-example"])
        #expect(try await d.remove(id: "b-example", deleteRecords: true) == 0)
        await #expect(throws: ProviderSyncError.unknownProvider("b-example")) { _ = try await d.remove(id: "b-example", deleteRecords: false) }
    }

    @Test func theLoopbackRedirectTakesTheCallbackOnceAndTimesOut() async throws {
        let redirect = try await LoopbackRedirect.listen()
        #expect(redirect.redirectURI == "http://127.0.0.1:\(redirect.port)/callback")
        let client = PinnedHTTPClient(policy: OutboundPolicy(addresses: AddressPolicy(allowLoopback: true)))
        let other = try await client.get(URL(string: "http://127.0.0.1:\(redirect.port)/favicon.ico")!)
        #expect(other.status == 404)
        async let query = redirect.waitForCallback(timeout: .seconds(30))
        let answer = try await client.get(URL(string: redirect.redirectURI + "?code=abc&state=xyz")!)
        #expect(answer.status == 200)
        #expect(try await query == "code=abc&state=xyz")

        let idle = try await LoopbackRedirect.listen()
        await #expect(throws: ProviderSyncError.self) { _ = try await idle.waitForCallback(timeout: .milliseconds(200)) }
    }
}

/// A provider's token is written into a header: only bearer-token characters pass.
@Suite struct BearerTokenTests {
    @Test func onlyB64TokenCharactersPass() {
        for good in ["abc", "a.b-c_d~e+f/g==", String(repeating: "x", count: 16 * 1024)] { #expect(TokenEndpoint.isBearerToken(good)) }
        for bad in ["", "a b", "a\r\nX-Evil: 1", "=abc", "ab=c", "tök", String(repeating: "x", count: 16 * 1024 + 1)] {
            #expect(!TokenEndpoint.isBearerToken(bad), "\(bad.prefix(20))")
        }
    }
}
