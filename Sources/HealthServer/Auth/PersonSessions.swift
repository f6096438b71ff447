import FHIR
import Foundation
import HealthStoreCore

/// A signed-in browser of the person: its expiry and the token its forms carry against
/// cross-site request forgery.
struct PersonSession: Sendable {
    /// The anti-forgery token every form of this session posts back.
    let csrfToken: String
    let expires: Date
    /// In a proxy's session, who is acting for the person (their id and name), and the name of
    /// the person acted for; `nil` in the person's own.
    var proxy: ProxyActor? = nil
}

/// Who acts for a person in a proxy's session (``HouseholdMember``).
struct ProxyActor: Sendable, Equatable {
    let id: String
    let name: String
    /// The name of the person acted for, as the proxy knows them.
    let actingFor: String
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

    /// Starts a session: the cookie value to set. A proxy's session belongs to a family of its
    /// proxy (``proxyFamily(_:)``), so ending the arrangement ends every one of them.
    func start(proxy: ProxyActor? = nil) async throws -> String {
        let cookie = cookiePrefix + SecretToken.make()
        let now = clock.now
        let digest = SecretToken.digest(cookie)
        var members = [JSONMember("csrf", .string(SecretToken.make()))]
        if let proxy {
            members += [JSONMember("actor", .string(proxy.id)), JSONMember("actorName", .string(proxy.name)), JSONMember("for", .string(proxy.actingFor))]
        }
        let details = JSONWriter.minified(.object(JSONObject(members)))
        _ = try await credentials.insertCredential(
            StoredCredential(
                kind: .personSession, digest: digest, appID: nil, family: proxy.map { Self.proxyFamily($0.id) } ?? digest,
                expires: now.addingTimeInterval(TimeInterval(lifetimeSeconds)), details: Data(details)))
        return cookie
    }

    /// The family of every session a proxy holds in this person's store.
    static func proxyFamily(_ proxyID: String) -> Data { SecretToken.digest("proxy\u{0}" + proxyID) }

    /// The live session a cookie value names.
    func session(cookie: String) async -> PersonSession? {
        guard let stored = try? await credentials.credential(.personSession, digest: SecretToken.digest(cookie)), stored.expires > clock.now,
            let details = (try? JSONReader().read(stored.details))?.objectValue, let csrf = details.string("csrf")
        else { return nil }
        var session = PersonSession(csrfToken: csrf, expires: stored.expires)
        if let actor = details.string("actor") {
            session.proxy = ProxyActor(id: actor, name: details.string("actorName") ?? actor, actingFor: details.string("for") ?? "")
        }
        return session
    }

    /// Ends a session (signing out).
    func end(cookie: String) async throws {
        _ = try await credentials.deleteCredential(.personSession, digest: SecretToken.digest(cookie))
    }
}
