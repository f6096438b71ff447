import Foundation
import HealthStoreCore
import Logging
import SMARTAuthorization
import Synchronization

/// The OAuth side of the server — `/token`, `/revoke`, `/introspect` — and what it shares:
/// the apps and credentials in the store, the access tokens, the failure throttle, the
/// asymmetric clients' key sets and the id-token signer.
final class AuthorizationServer: Sendable {
    /// Apps (client authentication) and credentials (codes, refresh tokens, assertion ids).
    let store: any ConsentStorage & CredentialStorage
    /// The store's clock: every expiry is on it.
    let clock: HealthClock
    let tokens: AccessTokens
    /// Wrong credentials back off per source address and per client (shared with sign-in).
    let failures: FailureThrottle
    /// Asymmetric clients' key sets from their JWKS URLs, kept between requests.
    let keySets: ClientKeySets
    let address: ServerAddress
    let logger: Logger
    /// The largest form body read.
    let maxBodyBytes: Int
    /// In a server for many people, the root's SMART base this person's grants may also be
    /// made at; `nil` otherwise.
    let shared: SharedSMARTBase?
    private let signer = Mutex<IDTokenSigner?>(nil)
    private let lastPurge = Mutex<Date>(.distantPast)

    init(
        store: any ConsentStorage & CredentialStorage, clock: HealthClock, tokens: AccessTokens, failures: FailureThrottle, keySets: ClientKeySets,
        address: ServerAddress, logger: Logger, maxBodyBytes: Int, shared: SharedSMARTBase? = nil
    ) {
        self.shared = shared
        self.store = store
        self.clock = clock
        self.tokens = tokens
        self.failures = failures
        self.keySets = keySets
        self.address = address
        self.logger = logger
        self.maxBodyBytes = maxBodyBytes
    }

    /// The endpoints as the links handed out name them.
    var endpoints: SMARTEndpoints { SMARTEndpoints(base: address.baseURL) }

    /// The endpoints a request reached: the shared base's when it came there.
    func endpoints(_ context: HealthRequestContext) -> SMARTEndpoints {
        if context.atSharedBase, let shared { return shared.endpoints }
        return endpoints
    }

    /// The id-token signer: its key is derived from the store's secret, so it survives restarts
    /// and every process serving the store signs with the same key. A grant made at the shared
    /// base is signed with the shared base's key instead.
    func idTokenSigner(atSharedBase: Bool = false) async throws -> IDTokenSigner {
        if atSharedBase, let shared { return shared.signer }
        if let s = signer.withLock({ $0 }) { return s }
        let made = try IDTokenSigner(seed: try await store.anchorSecret())
        signer.withLock { $0 = made }
        return made
    }

    /// Removes expired credentials from the store, at most once every ten minutes (called when
    /// credentials are issued, so a busy server keeps the table small and an idle one does no work).
    func purgeExpiredCredentials() async {
        let now = clock.now
        let due = lastPurge.withLock { last in
            guard now.timeIntervalSince(last) >= 600 else { return false }
            last = now
            return true
        }
        if due { _ = try? await store.deleteCredentials(expiredBefore: now) }
    }
}
