import Foundation
import HealthStoreCore
import Synchronization

/// An app's request to read types, waiting for the person (HealthKit's authorization sheet).
struct AuthorizationRequest: Sendable {
    /// What became of it.
    enum State: Sendable, Equatable {
        /// The person has not answered yet.
        case pending
        /// The person answered; what they chose is not told.
        case completed
        /// The person denied a type the app requires (not which).
        case requiredAuthorizationDenied
    }

    let id: String
    let appID: String
    /// The types asked for, in a stable order.
    let types: [HealthDataType]
    /// Where the person's browser goes after answering, if the app gave one.
    let redirectURI: URL?
    let expires: Date
    var state: State
}

/// An app's request for verifiable records, waiting for the person's pick; answered once.
struct CardRequest: Sendable {
    /// What became of it.
    enum State: Sendable, Equatable {
        /// The person has not answered yet.
        case pending
        /// The person picked (possibly none); the token redeems the pick once.
        case shared(token: String)
        /// The app took the picked cards.
        case collected
    }

    let id: String
    let request: VerifiableRecordRequest
    let redirectURI: URL?
    let expires: Date
    var state: State

    var appID: String { request.appID }
}

/// Requests waiting for the person, in memory: they expire after
/// ``ServerConfiguration/pendingRequestLifetime`` and do not survive a restart (the app asks
/// again). Ids are 256 random bits.
///
/// Memory is bounded: every request an app made, answered or not, counts against its
/// ``ServerLimits/maxPendingRequestsPerApp`` until it expires (answered ones included — an app
/// could otherwise fill memory with requests that complete at once), and only authenticated
/// apps add requests.
final class PendingRequests: Sendable {
    private let authorizations = Mutex<[String: AuthorizationRequest]>([:])
    private let cards = Mutex<[String: CardRequest]>([:])
    private let lifetime: Duration
    private let clock: HealthClock
    private let maxPerApp: Int

    init(lifetime: Duration, clock: HealthClock, maxPerApp: Int) {
        self.lifetime = lifetime
        self.clock = clock
        self.maxPerApp = maxPerApp
    }

    private var expiry: Date { clock.now.addingTimeInterval(TimeInterval(lifetime.components.seconds)) }

    /// Adds an authorization request; `nil` when the app has too many pending already.
    func addAuthorization(appID: String, types: [HealthDataType], redirectURI: URL?, state: AuthorizationRequest.State) -> AuthorizationRequest? {
        let now = clock.now
        let request = AuthorizationRequest(id: SecretToken.make(), appID: appID, types: types, redirectURI: redirectURI, expires: expiry, state: state)
        return authorizations.withLock { map in
            map = map.filter { $0.value.expires > now }
            guard map.values.filter({ $0.appID == appID }).count < maxPerApp else { return nil }
            map[request.id] = request
            return request
        }
    }

    /// A live authorization request.
    func authorization(_ id: String) -> AuthorizationRequest? {
        let now = clock.now
        return authorizations.withLock { map in map[id].flatMap { $0.expires > now ? $0 : nil } }
    }

    /// Records the person's answer; `false` when the request is gone or was answered.
    func answerAuthorization(_ id: String, state: AuthorizationRequest.State) -> Bool {
        let now = clock.now
        return authorizations.withLock { map in
            guard var r = map[id], r.expires > now, r.state == .pending else { return false }
            r.state = state
            map[id] = r
            return true
        }
    }

    /// Adds a verifiable-record request; `nil` when the app has too many pending already.
    func addCards(_ request: VerifiableRecordRequest, redirectURI: URL?) -> CardRequest? {
        let now = clock.now
        let r = CardRequest(id: SecretToken.make(), request: request, redirectURI: redirectURI, expires: expiry, state: .pending)
        return cards.withLock { map in
            map = map.filter { $0.value.expires > now }
            guard map.values.filter({ $0.appID == request.appID }).count < maxPerApp else { return nil }
            map[r.id] = r
            return r
        }
    }

    /// A live verifiable-record request.
    func cards(_ id: String) -> CardRequest? {
        let now = clock.now
        return cards.withLock { map in map[id].flatMap { $0.expires > now ? $0 : nil } }
    }

    /// Records the person's pick; `false` when the request is gone or was answered.
    func answerCards(_ id: String, token: String) -> Bool {
        let now = clock.now
        return cards.withLock { map in
            guard var r = map[id], r.expires > now, r.state == .pending else { return false }
            r.state = .shared(token: token)
            map[id] = r
            return true
        }
    }

    /// Takes the share token of an answered request once; later calls get `nil`.
    func collectCards(_ id: String, appID: String) -> String? {
        cards.withLock { map in
            guard var r = map[id], r.appID == appID, case .shared(let token) = r.state else { return nil }
            r.state = .collected
            map[id] = r
            return token
        }
    }

    /// Drops every request of an app (its access was revoked): pending pages stop working and
    /// a pick not yet collected is gone.
    func removeAll(appID: String) {
        authorizations.withLock { map in map = map.filter { $0.value.appID != appID } }
        cards.withLock { map in map = map.filter { $0.value.appID != appID } }
    }
}
