import Foundation
import HealthStoreCore
import NetworkAddresses
import OutboundHTTP
import Testing
import TestSupport

@testable import ProviderSync

/// `ProviderSignIn` end to end, as `providers connect` runs it: discovery, the authorization
/// request with PKCE S256, the person's browser (here a plain HTTP client) coming back to the
/// loopback redirect, the code exchange, and a sync with what it got.
@Suite struct ProviderSignInFlowTests {
    static func configuration() -> ScriptedProvider.Configuration {
        var c = ScriptedProvider.Configuration()
        c.searches = ["Observation": (1...3).map { ServedResource.observation("obs-\($0)") }]
        return c
    }

    /// The person's browser: it may visit loopback, and follows no redirect by itself.
    static let browser = PinnedHTTPClient(policy: OutboundPolicy(addresses: AddressPolicy(allowLoopback: true)))

    /// Opens the authorization address and reads the provider's "continue" link (the redirect
    /// back, with a code or an error, and the state).
    static func approve(_ url: URL) async throws -> URL {
        let page = try await browser.get(url)
        #expect(page.status == 200, "\(String(decoding: page.body, as: UTF8.self))")
        return try #require(URL(string: String(decoding: page.body, as: UTF8.self)))
    }

    static func query(_ url: URL, _ name: String) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == name })?.value
    }

    @Test func signingInThroughTheLoopbackRedirectConnectsAndSyncs() async throws {
        let world = try await SyncWorld(Self.configuration())
        try await world.addConnection()
        let signIn = ProviderSignIn(store: world.store)
        let redirect = try await LoopbackRedirect.listen()
        let url = try await signIn.begin(providerID: SyncWorld.providerID, redirectURI: redirect.redirectURI)

        // The request names the client, the redirect, the FHIR server it is for (aud) and an
        // S256 challenge; the pending sign-in saved in the store holds the same state.
        #expect(url.absoluteString.hasPrefix(world.provider.origin + "/authorize?"))
        #expect(Self.query(url, "client_id") == world.provider.configuration.clientID)
        #expect(Self.query(url, "redirect_uri") == redirect.redirectURI)
        #expect(Self.query(url, "aud") == world.provider.fhirBase)
        #expect(Self.query(url, "code_challenge_method") == "S256")
        let pending = try #require(try await world.connection()?.pending)
        #expect(Self.query(url, "state") == pending.state)
        #expect(pending.redirectURI == redirect.redirectURI)

        async let callback = redirect.waitForCallback(timeout: .seconds(30))
        let back = try await Self.approve(url)
        #expect(back.absoluteString.hasPrefix(redirect.redirectURI + "?"))
        let landed = try await Self.browser.get(back)
        #expect(landed.status == 200)
        let connection = try await signIn.complete(providerID: SyncWorld.providerID, callbackQuery: try await callback)

        // The provider checked the verifier against the challenge before issuing anything.
        #expect(world.provider.log.contains { $0.label == "token authorization_code" && $0.status == 200 })
        let issued = try #require(world.provider.issued.last)
        #expect(connection.status == .connected && connection.pending == nil)
        #expect(connection.patientID == world.provider.configuration.patient)
        #expect(connection.tokens?.accessToken == issued.access && connection.tokens?.refreshToken == issued.refresh)
        #expect(try await world.connection() == connection, "what complete() answers is what it saved")

        let report = await world.sync()
        #expect(report.error == nil, "\(String(describing: report.error))")
        #expect(try await world.stored() == Set(world.provider.allResources.map(\.key)))
        #expect(ScriptedProvider.dataRequests(world.provider.log).allSatisfy { $0.bearer == issued.access })
    }

    /// A callback whose state is not the one sent (a forged link) is refused and leaves the
    /// real sign-in waiting; the real callback then completes it, once.
    @Test func aCallbackWithAnotherStateIsRefusedAndTheSignInStillWaits() async throws {
        let world = try await SyncWorld(Self.configuration())
        try await world.addConnection()
        let signIn = ProviderSignIn(store: world.store)
        let redirectURI = "http://127.0.0.1:9/callback"
        let url = try await signIn.begin(providerID: SyncWorld.providerID, redirectURI: redirectURI)
        let back = try await Self.approve(url)
        let code = try #require(Self.query(back, "code"))

        do {
            _ = try await signIn.complete(providerID: SyncWorld.providerID, callbackQuery: "code=\(code)&state=forged")
            Issue.record("a callback with another state was taken")
        } catch {
            #expect(error.code == ProviderSyncError.signIn("").code)
        }
        #expect(try await world.connection()?.pending != nil, "the real sign-in still waits")
        #expect(world.provider.count("token authorization_code") == 0, "the code was not spent")

        let query = try #require(URLComponents(url: back, resolvingAgainstBaseURL: false)?.percentEncodedQuery)
        let connection = try await signIn.complete(providerID: SyncWorld.providerID, callbackQuery: query)
        #expect(connection.status == .connected)
        // The same callback again finds nothing waiting.
        do {
            _ = try await signIn.complete(providerID: SyncWorld.providerID, callbackQuery: query)
            Issue.record("a callback was taken twice")
        } catch {
            #expect(error.code == ProviderSyncError.signIn("").code)
        }
        #expect(world.provider.count("token authorization_code") == 1)
    }

    /// The person declines at the provider: the sign-in ends (its state is spent), the
    /// connection stays unconnected, and no token is asked for.
    @Test func aDenialEndsTheSignIn() async throws {
        var configuration = Self.configuration()
        configuration.deniesSignIn = true
        let world = try await SyncWorld(configuration)
        try await world.addConnection()
        let signIn = ProviderSignIn(store: world.store)
        let url = try await signIn.begin(providerID: SyncWorld.providerID, redirectURI: "http://127.0.0.1:9/callback")
        let back = try await Self.approve(url)
        #expect(Self.query(back, "error") == "access_denied")
        let query = try #require(URLComponents(url: back, resolvingAgainstBaseURL: false)?.percentEncodedQuery)
        do {
            _ = try await signIn.complete(providerID: SyncWorld.providerID, callbackQuery: query)
            Issue.record("a denial connected")
        } catch {
            #expect(error.code == ProviderSyncError.signIn("").code)
            #expect(error.description.contains("access_denied"))
        }
        let connection = try #require(try await world.connection())
        #expect(connection.pending == nil && connection.tokens == nil && connection.status == .notConnected)
        #expect(!world.provider.log.contains { $0.label.hasPrefix("token ") })
    }

    /// A provider that offers only `plain` PKCE is refused before the person is sent anywhere.
    @Test func aProviderWithoutS256IsRefused() async throws {
        var configuration = Self.configuration()
        configuration.challengeMethods = ["plain"]
        let world = try await SyncWorld(configuration)
        try await world.addConnection()
        do {
            _ = try await ProviderSignIn(store: world.store).begin(providerID: SyncWorld.providerID, redirectURI: "http://127.0.0.1:9/callback")
            Issue.record("a sign-in began without S256")
        } catch {
            #expect(error.code == ProviderSyncError.unsupported("").code)
        }
        #expect(try await world.connection()?.pending == nil)
        #expect(world.provider.count("authorize") == 0)
    }
}
