import Foundation
import HealthStoreCore
import FHIR
import VerifiableRecords

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

/// Requests waiting for the person, kept in the store (a ``StoredCredential`` of kind
/// `app-request` or `card-request`, keyed by the digest of the id), so an app's request made on
/// one process is answered on the person's consent page served by another, and survives a
/// restart. They expire after ``ServerConfiguration/pendingRequestLifetime``. Ids are 256
/// random bits. Answers are compare-and-set on the stored details: of two answers, one counts;
/// a pick is collected once.
///
/// Storage is bounded: every request an app made, answered or not, counts against its
/// ``ServerLimits/maxPendingRequestsPerApp`` until it expires (answered ones included — an app
/// could otherwise fill the store with requests that complete at once), and only authenticated
/// apps add requests. (Two processes adding at the same instant may each let one more in.)
struct PendingRequests: Sendable {
    let store: any CredentialStorage
    let lifetime: Duration
    let clock: HealthClock
    let maxPerApp: Int

    init(store: any CredentialStorage, lifetime: Duration, clock: HealthClock, maxPerApp: Int) {
        self.store = store
        self.lifetime = lifetime
        self.clock = clock
        self.maxPerApp = maxPerApp
    }

    private var expiry: Date { clock.now.addingTimeInterval(TimeInterval(lifetime.components.seconds)) }

    /// Adds an authorization request; `nil` when the app has too many pending already.
    func addAuthorization(appID: String, types: [HealthDataType], redirectURI: URL?, state: AuthorizationRequest.State) async throws -> AuthorizationRequest? {
        guard try await store.countCredentials(.appAuthorizationRequest, appID: appID, liveAt: clock.now) < maxPerApp else { return nil }
        let request = AuthorizationRequest(id: SecretToken.make(), appID: appID, types: types, redirectURI: redirectURI, expires: expiry, state: state)
        let digest = SecretToken.digest(request.id)
        _ = try await store.insertCredential(
            StoredCredential(kind: .appAuthorizationRequest, digest: digest, appID: appID, family: digest, expires: request.expires, details: Self.details(request)))
        return request
    }

    /// A live authorization request.
    func authorization(_ id: String) async throws -> AuthorizationRequest? {
        try await live(.appAuthorizationRequest, id).flatMap { Self.authorization(id: id, $0) }
    }

    /// Records the person's answer; `false` when the request is gone or was answered.
    func answerAuthorization(_ id: String, state: AuthorizationRequest.State) async throws -> Bool {
        guard let stored = try await live(.appAuthorizationRequest, id), var request = Self.authorization(id: id, stored), request.state == .pending else {
            return false
        }
        request.state = state
        return try await store.replaceCredentialDetails(.appAuthorizationRequest, digest: stored.digest, from: stored.details, to: Self.details(request))
    }

    /// Adds a verifiable-record request; `nil` when the app has too many pending already.
    func addCards(_ request: VerifiableRecordRequest, redirectURI: URL?) async throws -> CardRequest? {
        guard try await store.countCredentials(.cardRequest, appID: request.appID, liveAt: clock.now) < maxPerApp else { return nil }
        let r = CardRequest(id: SecretToken.make(), request: request, redirectURI: redirectURI, expires: expiry, state: .pending)
        let digest = SecretToken.digest(r.id)
        _ = try await store.insertCredential(
            StoredCredential(kind: .cardRequest, digest: digest, appID: request.appID, family: digest, expires: r.expires, details: Self.details(r)))
        return r
    }

    /// A live verifiable-record request.
    func cards(_ id: String) async throws -> CardRequest? {
        try await live(.cardRequest, id).flatMap { Self.cards(id: id, $0) }
    }

    /// Records the person's pick; `false` when the request is gone or was answered.
    func answerCards(_ id: String, token: String) async throws -> Bool {
        guard let stored = try await live(.cardRequest, id), var request = Self.cards(id: id, stored), request.state == .pending else { return false }
        request.state = .shared(token: token)
        return try await store.replaceCredentialDetails(.cardRequest, digest: stored.digest, from: stored.details, to: Self.details(request))
    }

    /// Takes the share token of an answered request once; later calls get `nil`.
    func collectCards(_ id: String, appID: String) async throws -> String? {
        guard let stored = try await store.credential(.cardRequest, digest: SecretToken.digest(id)), var request = Self.cards(id: id, stored),
            request.appID == appID, case .shared(let token) = request.state
        else { return nil }
        request.state = .collected
        guard try await store.replaceCredentialDetails(.cardRequest, digest: stored.digest, from: stored.details, to: Self.details(request)) else { return nil }
        return token
    }

    /// Drops every request of an app (its access was revoked): pending pages stop working and
    /// a pick not yet collected is gone.
    func removeAll(appID: String) async throws {
        _ = try await store.deleteCredentials(.appAuthorizationRequest, appID: appID)
        _ = try await store.deleteCredentials(.cardRequest, appID: appID)
    }

    // MARK: Stored shape

    private func live(_ kind: StoredCredential.Kind, _ id: String) async throws -> StoredCredential? {
        guard !id.isEmpty, id.utf8.count <= 256, let stored = try await store.credential(kind, digest: SecretToken.digest(id)), stored.expires > clock.now else {
            return nil
        }
        return stored
    }

    private static func details(_ r: AuthorizationRequest) -> Data {
        let state: String
        switch r.state {
        case .pending: state = "pending"
        case .completed: state = "completed"
        case .requiredAuthorizationDenied: state = "denied"
        }
        var members = [JSONMember("types", .array(r.types.map { .string($0.name) })), JSONMember("state", .string(state))]
        if let redirect = r.redirectURI { members.append(JSONMember("redirect", .string(redirect.absoluteString))) }
        return Data(JSONWriter.minified(.object(JSONObject(members))))
    }

    private static func authorization(id: String, _ stored: StoredCredential) -> AuthorizationRequest? {
        guard let appID = stored.appID, let object = (try? JSONReader().read(stored.details))?.objectValue,
            let names = object["types"]?.arrayValue
        else { return nil }
        let state: AuthorizationRequest.State
        switch object.string("state") {
        case "pending": state = .pending
        case "completed": state = .completed
        case "denied": state = .requiredAuthorizationDenied
        default: return nil
        }
        let types = names.compactMap { $0.stringValue.flatMap(HealthDataType.init(name:)) }
        guard types.count == names.count else { return nil }
        return AuthorizationRequest(
            id: id, appID: appID, types: types, redirectURI: object.string("redirect").flatMap(URL.init(string:)), expires: stored.expires, state: state)
    }

    private static func details(_ r: CardRequest) -> Data {
        var members = [
            JSONMember("recordTypes", .array(r.request.recordTypes.map { .string($0) })),
            JSONMember("sourceTypes", .array(r.request.sourceTypes.map { .string($0.rawValue) })),
        ]
        if let interval = r.request.relevantDate {
            members.append(JSONMember("from", .string(String(interval.start.timeIntervalSince1970))))
            members.append(JSONMember("to", .string(String(interval.end.timeIntervalSince1970))))
        }
        if let redirect = r.redirectURI { members.append(JSONMember("redirect", .string(redirect.absoluteString))) }
        switch r.state {
        case .pending: members.append(JSONMember("state", .string("pending")))
        case .shared(let token):
            members.append(JSONMember("state", .string("shared")))
            members.append(JSONMember("token", .string(token)))
        case .collected: members.append(JSONMember("state", .string("collected")))
        }
        return Data(JSONWriter.minified(.object(JSONObject(members))))
    }

    private static func cards(id: String, _ stored: StoredCredential) -> CardRequest? {
        guard let appID = stored.appID, let object = (try? JSONReader().read(stored.details))?.objectValue,
            let recordTypes = object["recordTypes"]?.arrayValue?.compactMap(\.stringValue),
            let sourceNames = object["sourceTypes"]?.arrayValue?.compactMap(\.stringValue)
        else { return nil }
        let sourceTypes = sourceNames.compactMap(VerifiableClinicalRecord.SourceType.init(rawValue:))
        guard sourceTypes.count == sourceNames.count else { return nil }
        var interval: DateInterval?
        if let from = object.string("from").flatMap(Double.init), let to = object.string("to").flatMap(Double.init), from <= to {
            interval = DateInterval(start: Date(timeIntervalSince1970: from), end: Date(timeIntervalSince1970: to))
        }
        let state: CardRequest.State
        switch object.string("state") {
        case "pending": state = .pending
        case "shared":
            guard let token = object.string("token") else { return nil }
            state = .shared(token: token)
        case "collected": state = .collected
        default: return nil
        }
        return CardRequest(
            id: id, request: VerifiableRecordRequest(appID: appID, recordTypes: recordTypes, relevantDate: interval, sourceTypes: sourceTypes),
            redirectURI: object.string("redirect").flatMap(URL.init(string:)), expires: stored.expires, state: state)
    }
}
