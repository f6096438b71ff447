import Foundation
import HealthStoreCore
import Synchronization

/// A signed-in browser of the person: its expiry and the token its forms carry against
/// cross-site request forgery.
struct PersonSession: Sendable {
    /// The anti-forgery token every form of this session posts back.
    let csrfToken: String
    let expires: Date
}

/// The person's browser sessions, in memory, keyed by the SHA-256 of the cookie value.
///
/// The person signs in with the person token (``ServerConfiguration/personToken``); the
/// session cookie (``SessionCookie``) is random, `HttpOnly`, `SameSite=Lax`, `Path=/`, and lasts
/// ``ServerConfiguration/personSessionLifetime``. A restart ends every session. At most
/// ``maxSessions`` live at once; a new one pushes out the oldest.
final class PersonSessions: Sendable {
    static let maxSessions = 64

    private let sessions = Mutex<[Data: PersonSession]>([:])
    private let lifetime: Duration
    private let clock: HealthClock

    init(lifetime: Duration, clock: HealthClock) {
        self.lifetime = lifetime
        self.clock = clock
    }

    var lifetimeSeconds: Int { Int(lifetime.components.seconds) }

    /// Starts a session: the cookie value to set.
    func start() -> String {
        let cookie = SecretToken.make()
        let now = clock.now
        let session = PersonSession(csrfToken: SecretToken.make(), expires: now.addingTimeInterval(TimeInterval(lifetimeSeconds)))
        sessions.withLock { map in
            map = map.filter { $0.value.expires > now }
            if map.count >= Self.maxSessions, let oldest = map.min(by: { $0.value.expires < $1.value.expires })?.key { map[oldest] = nil }
            map[SecretToken.digest(cookie)] = session
        }
        return cookie
    }

    /// The live session a cookie value names.
    func session(cookie: String) -> PersonSession? {
        let key = SecretToken.digest(cookie)
        let now = clock.now
        return sessions.withLock { map in
            guard let s = map[key] else { return nil }
            guard s.expires > now else {
                map[key] = nil
                return nil
            }
            return s
        }
    }

    func end(cookie: String) {
        let key = SecretToken.digest(cookie)
        _ = sessions.withLock { $0.removeValue(forKey: key) }
    }
}
