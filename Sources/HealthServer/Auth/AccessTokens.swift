import ClinicalRecords
import Foundation
import HealthStoreCore
import Synchronization

/// Bearer tokens for apps, issued by `POST /token` (OAuth2 client credentials).
///
/// Tokens are 256 random bits, held only in this process's memory and only as SHA-256
/// digests, each with its app and expiry: a restart logs every app out (they ask for a new
/// token, as OAuth2 clients do on 401). Each app holds at most ``maxPerApp`` live tokens; a new
/// one pushes out the oldest.
final class AccessTokens: Sendable {
    struct Entry: Sendable {
        let appID: String
        /// The app's access revision when the token was issued: a revocation voids it.
        let revision: Int
        let expires: Date
        let issued: Date
        /// The consent categories the token is narrowed to; `nil` for all the app's grants.
        var scopeCategories: Set<ConsentCategory>? = nil
    }

    /// Live tokens an app may hold at once.
    static let maxPerApp = 16

    private let tokens = Mutex<[Data: Entry]>([:])
    private let lifetime: Duration
    private let clock: HealthClock

    init(lifetime: Duration, clock: HealthClock) {
        self.lifetime = lifetime
        self.clock = clock
    }

    /// A new token for an app, and its lifetime in seconds.
    func issue(appID: String, revision: Int, scopeCategories: Set<ConsentCategory>? = nil) -> (token: String, expiresIn: Int) {
        let token = SecretToken.make()
        let now = clock.now
        let seconds = Int(lifetime.components.seconds)
        tokens.withLock { map in
            map = map.filter { $0.value.expires > now }
            let own = map.filter { $0.value.appID == appID }.sorted { $0.value.issued < $1.value.issued }
            for (key, _) in own.prefix(max(0, own.count - Self.maxPerApp + 1)) { map[key] = nil }
            map[SecretToken.digest(token)] = Entry(appID: appID, revision: revision, expires: now.addingTimeInterval(TimeInterval(seconds)), issued: now,
                scopeCategories: scopeCategories)
        }
        return (token, seconds)
    }

    /// The app a token belongs to and the access revision it was issued under; `nil` for an
    /// unknown or expired token.
    func entry(for token: String) -> Entry? {
        let key = SecretToken.digest(token)
        let now = clock.now
        return tokens.withLock { map in
            guard let e = map[key] else { return nil }
            guard e.expires > now else {
                map[key] = nil
                return nil
            }
            return e
        }
    }

    /// Ends an app's tokens issued under access revisions older than `revision` (its access was
    /// revoked).
    func revokeAll(appID: String, before revision: Int) {
        tokens.withLock { map in map = map.filter { $0.value.appID != appID || $0.value.revision >= revision } }
    }
}
