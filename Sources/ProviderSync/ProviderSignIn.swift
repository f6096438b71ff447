import Foundation
import HealthStoreCore
import SMARTAuthorization

/// SMART App Launch sign-in at a provider (standalone launch): the authorization request with
/// PKCE S256, a fresh `state` and `aud`, then the code exchange. The CLI waits on a loopback
/// redirect; the server keeps the pending sign-in in the store and finishes on its callback.
public struct ProviderSignIn: Sendable {
    /// The store connections are kept in.
    public let store: any HealthStore
    /// The clock sign-ins are dated with.
    public let clock: @Sendable () -> Date

    /// How long a started sign-in may wait for the provider's redirect.
    public static let pendingLifetime: TimeInterval = 15 * 60

    /// Makes a sign-in helper over a store.
    public init(store: any HealthStore, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.clock = clock
    }

    /// Starts a sign-in: discovers the endpoints, saves the pending sign-in and answers the
    /// address the person opens.
    public func begin(providerID: String, redirectURI: String) async throws(ProviderSyncError) -> URL {
        let (provider, session) = try await open(providerID)
        guard provider.access == .signIn else { throw .unsupported("sign-in for a provider added with a held token or as a backend service") }
        guard let clientID = provider.clientID else { throw .signIn("the provider has no client id (providers add --client-id)") }
        let configuration = try await session.smartConfiguration()
        guard let endpoint = configuration.authorizationEndpoint else { throw .unsupported("a user sign-in (no authorization_endpoint)") }
        guard configuration.offersS256 else { throw .unsupported("PKCE with S256") }
        let pending = ProviderConnection.PendingSignIn(
            state: AuthorizationSecrets.state(), codeVerifier: AuthorizationSecrets.codeVerifier(), redirectURI: redirectURI, started: clock())
        var updated = provider
        updated.pending = pending
        try await save(updated)
        let request = AuthorizationRequest(
            endpoint: endpoint, clientID: clientID, redirectURI: redirectURI, scope: provider.scope, state: pending.state, audience: provider.fhirBase,
            codeVerifier: pending.codeVerifier)
        return request.url
    }

    /// Finishes a sign-in with the query the provider redirected back with.
    public func complete(providerID: String, callbackQuery: String) async throws(ProviderSyncError) -> ProviderConnection {
        let (provider, session) = try await open(providerID)
        guard let pending = provider.pending else { throw .signIn("no sign-in is waiting for \(providerID)") }
        guard clock().timeIntervalSince(pending.started) < Self.pendingLifetime else { throw .signIn("the sign-in took too long; start again") }
        let callback: AuthorizationCallback
        do { callback = try AuthorizationCallback.parse(query: callbackQuery, expectedState: pending.state) } catch { throw .signIn("\(error)") }
        // The state matched: this sign-in is used up, whatever the callback carries, so a
        // second callback with the same state (a forged code after a denial) finds nothing.
        var spent = provider
        spent.pending = nil
        try await save(spent)
        let code: String
        switch callback {
        case .code(let c): code = c
        case .denied(let error, let description): throw .signIn("the provider answered \(error)" + (description.map { ": \($0)" } ?? ""))
        }
        let response: TokenResponse
        do {
            response = try await session.endpoint().exchange(code: code, verifier: pending.codeVerifier, redirectURI: pending.redirectURI, now: clock())
        } catch {
            if case .needsSignIn(_, let reason) = error { throw .signIn("the provider refused the code: \(reason)") }
            throw error
        }
        try await session.signedIn(response)
        return await session.provider
    }

    /// Finds the pending sign-in whose `state` a callback carries (the server's one callback
    /// address serves every provider).
    public func provider(forState state: String) async throws(ProviderSyncError) -> ProviderConnection? {
        let all: [ProviderConnection]
        do { all = try await store.providers() } catch { throw .store("\(error)") }
        return all.first { p in p.pending.map { Self.same($0.state, state) } ?? false }
    }

    private static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private func open(_ providerID: String) async throws(ProviderSyncError) -> (ProviderConnection, ProviderSession) {
        let provider: ProviderConnection?
        do { provider = try await store.provider(id: providerID) } catch { throw .store("\(error)") }
        guard let provider else { throw .unknownProvider(providerID) }
        guard let base = URL.fhirBase(provider.fhirBase) else { throw .invalidBase(provider.fhirBase, reason: "not a URL") }
        let http = try ProviderHTTP(base: base, allowLoopback: provider.allowLoopback, retry: RetryPolicy(maxAttempts: 3))
        return (provider, ProviderSession(provider: provider, store: store, http: http, clock: clock))
    }

    private func save(_ provider: ProviderConnection) async throws(ProviderSyncError) {
        do { try await store.saveProvider(provider) } catch { throw .store("\(error)") }
    }
}
