import FHIR
import Foundation
import HealthStoreCore

/// A signed-in browser of the person: its expiry and the token its forms carry against
/// cross-site request forgery.
struct PersonSession: Sendable {
    /// The anti-forgery token every form of this session posts back.
    let csrfToken: String
    let expires: Date
}

/// The person's browser sessions, kept in the store as digests of the cookie value (a
/// ``StoredCredential`` of kind `session`), so a restart signs nobody out and every process
/// serving the store knows them.
///
/// The person signs in with the person token (``ServerConfiguration/personToken``); the
/// session cookie (``SessionCookie``) is random, `HttpOnly`, `SameSite=Lax`, `Path=/`, and lasts
/// ``ServerConfiguration/personSessionLifetime``.
struct PersonSessions: Sendable {
    let credentials: any CredentialStorage
    let clock: HealthClock
    let lifetime: Duration
    /// What starts every cookie value: `""` for the one person, `"<id>."` in a server for many
    /// (``ServerConfiguration/servedPerson``); the whole value is what the digest is of.
    var cookiePrefix = ""

    var lifetimeSeconds: Int { Int(lifetime.components.seconds) }

    /// Starts a session: the cookie value to set.
    func start() async throws -> String {
        let cookie = cookiePrefix + SecretToken.make()
        let now = clock.now
        let digest = SecretToken.digest(cookie)
        let details = JSONWriter.minified(.object(JSONObject(["csrf": .string(SecretToken.make())])))
        _ = try await credentials.insertCredential(
            StoredCredential(
                kind: .personSession, digest: digest, appID: nil, family: digest, expires: now.addingTimeInterval(TimeInterval(lifetimeSeconds)),
                details: Data(details)))
        return cookie
    }

    /// The live session a cookie value names.
    func session(cookie: String) async -> PersonSession? {
        guard let stored = try? await credentials.credential(.personSession, digest: SecretToken.digest(cookie)), stored.expires > clock.now,
            let csrf = (try? JSONReader().read(stored.details))?.objectValue?.string("csrf")
        else { return nil }
        return PersonSession(csrfToken: csrf, expires: stored.expires)
    }

    /// Ends a session (signing out).
    func end(cookie: String) async throws {
        _ = try await credentials.deleteCredential(.personSession, digest: SecretToken.digest(cookie))
    }
}
