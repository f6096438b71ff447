import Foundation
import HealthStoreCore
import SMARTAuthorization

/// A provider connection in use: hands out a valid bearer token, refreshing it before it
/// expires and once after a 401, and saves every change (new tokens, "needs sign-in") to the
/// store at once, so a refresh token rotated by the provider is never lost.
actor ProviderSession {
    private(set) var provider: ProviderConnection
    let store: any HealthStore
    let http: ProviderHTTP
    let clock: @Sendable () -> Date
    private var configuration: SMARTConfiguration?
    /// The renewal under way: concurrent searches wait for it rather than spend the same
    /// refresh token again (a provider that rotates them takes a second use for theft).
    private var renewal: Task<String, any Error>?

    /// Refresh this long before the provider's expiry (a quarter of a shorter lifetime).
    static let refreshMargin: TimeInterval = 60

    init(provider: ProviderConnection, store: any HealthStore, http: ProviderHTTP, clock: @escaping @Sendable () -> Date) {
        self.provider = provider
        self.store = store
        self.http = http
        self.clock = clock
    }

    var base: URL { URL.fhirBase(provider.fhirBase)! }

    /// The token to send now.
    func bearer() async throws(ProviderSyncError) -> String {
        // A renewal under way means the provider refused the current token: wait for the new one.
        if let renewal {
            do { return try await renewal.value } catch { throw error as? ProviderSyncError ?? .store("\(error)") }
        }
        if let tokens = provider.tokens, !Self.expiring(tokens, at: clock()) { return tokens.accessToken }
        return try await renew(reason: provider.tokens == nil ? "no token yet" : "the access token expired")
    }

    /// After a 401 for `token`: one new token (unless another request already got one).
    func renewAfterUnauthorized(_ token: String) async throws(ProviderSyncError) -> String {
        if let current = provider.tokens?.accessToken, current != token { return current }
        return try await renew(reason: "the provider refused the access token (401)")
    }

    /// The provider's SMART endpoints, discovered once per session.
    func smartConfiguration() async throws(ProviderSyncError) -> SMARTConfiguration {
        if let configuration { return configuration }
        let found = try await ProviderDiscovery(http: http, base: base).smartConfiguration()
        configuration = found
        return found
    }

    /// Saves tokens a sign-in obtained.
    func signedIn(_ response: TokenResponse) async throws(ProviderSyncError) {
        provider.tokens = Self.tokens(response, keeping: nil, now: clock())
        if let patient = response.patient { provider.patientID = patient }
        provider.status = .connected
        provider.statusDetail = nil
        provider.pending = nil
        try await save()
    }

    /// Records "needs sign-in" (nothing else changes: no record is deleted).
    func markNeedsSignIn(_ reason: String) async {
        provider.status = .needsSignIn
        provider.statusDetail = reason
        try? await save()
    }

    /// Saves the sync's dates and drops its checkpoint, together.
    func finishedSync(at date: Date, full: Bool, since: Date) async throws(ProviderSyncError) {
        provider.lastSync = date
        if full { provider.lastFullSync = date }
        provider.syncedSince = since
        do { try await store.saveFinishedSync(provider) } catch { throw .store("\(error)") }
    }

    /// Names the provider when it had no name yet (the first sync learns the organization's).
    func adoptName(_ name: String) async throws(ProviderSyncError) {
        guard provider.name == provider.id || provider.name.isEmpty else { return }
        provider.name = name
        try await save()
    }

    private func renew(reason: String) async throws(ProviderSyncError) -> String {
        if let renewal {
            do { return try await renewal.value } catch { throw error as? ProviderSyncError ?? .store("\(error)") }
        }
        let task = Task { () async throws -> String in
            do { return try await self.renewOnce(reason: reason) } catch { throw error }
        }
        renewal = task
        defer { renewal = nil }
        do { return try await task.value } catch { throw error as? ProviderSyncError ?? .store("\(error)") }
    }

    private func renewOnce(reason: String) async throws(ProviderSyncError) -> String {
        let now = clock()
        do throws(ProviderSyncError) {
            let response: TokenResponse
            switch provider.access {
            case .heldToken:
                throw ProviderSyncError.needsSignIn(provider: provider.id, reason: reason + "; the token you gave cannot be renewed")
            case .backend:
                response = try await endpoint().clientCredentials(scope: provider.scope, now: now)
            case .signIn:
                guard let refresh = provider.tokens?.refreshToken else {
                    throw ProviderSyncError.needsSignIn(provider: provider.id, reason: reason + "; the provider gave no refresh token")
                }
                response = try await endpoint().refresh(refresh, now: now)
            }
            provider.tokens = Self.tokens(response, keeping: provider.tokens?.refreshToken, now: now)
            if let patient = response.patient { provider.patientID = patient }
            provider.status = .connected
            provider.statusDetail = nil
            try await save()
            return response.accessToken
        } catch {
            if case .needsSignIn(_, let why) = error {
                await markNeedsSignIn(why)
                throw .needsSignIn(provider: provider.id, reason: why)
            }
            throw error
        }
    }

    func endpoint() async throws(ProviderSyncError) -> TokenEndpoint {
        let configuration = try await smartConfiguration()
        return TokenEndpoint(url: configuration.tokenEndpoint, http: http, clientID: provider.clientID, client: provider.client)
    }

    private func save() async throws(ProviderSyncError) {
        do { try await store.saveProvider(provider) } catch { throw .store("\(error)") }
    }

    static func expiring(_ tokens: ProviderConnection.Tokens, at now: Date) -> Bool {
        if let refreshAt = tokens.refreshAt { return now >= refreshAt }
        guard let expires = tokens.expires else { return false }
        return expires.timeIntervalSince(now) < refreshMargin
    }

    static func tokens(_ r: TokenResponse, keeping refresh: String?, now: Date) -> ProviderConnection.Tokens {
        // A provider that does not rotate refresh tokens answers none: the old one still holds.
        var tokens = ProviderConnection.Tokens(
            accessToken: r.accessToken, refreshToken: r.refreshToken ?? refresh, expires: r.expiresIn.map { now.addingTimeInterval(TimeInterval($0)) },
            scope: r.scope)
        // A token that lives less than four minutes is refreshed after three quarters of its
        // life, not a minute before its end (which could be before it was even issued).
        tokens.refreshAt = r.expiresIn.map { now.addingTimeInterval(TimeInterval($0) - min(refreshMargin, TimeInterval($0) / 4)) }
        return tokens
    }
}
