import ClinicalRecords
import Foundation
import HealthStoreCore
import Synchronization

/// What apps hold in this process and how it ends: bearer tokens, the per-app rate, event
/// streams, and — through the pending requests and webhooks — everything revocation must end.
///
/// Every app request reads the app's row and grants once, in the statement that reads its
/// token (``authenticate(_:audience:facts:)``): that read both checks the token's access
/// revision (a revocation in any process voids it at once) and makes the app's view, so no
/// registration or grant is cached here.
final class AppAccess: Sendable {
    /// Which API a bearer token is presented to: the app API takes client-credentials tokens
    /// only; the FHIR API takes both kinds.
    enum Audience: Sendable {
        case appAPI
        case fhir
    }

    /// Who a request's token stands for, once checked.
    struct Caller: Sendable {
        /// The app's view of the store (its grants, its audit).
        let view: AppView
        /// The access revision the token was issued under.
        let revision: Int
        /// What the token's scopes reach; `nil` for a client-credentials token.
        let scopes: TokenScopes?
    }

    /// What checking an app's access revision found.
    enum AccessCheck {
        /// The revision is the app's current one.
        case current
        /// The app was revoked (from any process) or removed since; what it held is ended.
        case revoked
        /// The store could not be read now; nothing is ended.
        case unavailable
    }

    let tokens: AccessTokens
    let limiter: RateLimiter
    let pending: PendingRequests
    let webhooks: Webhooks
    private let consent: ConsentManager
    private let maxStreamsPerApp: Int
    private let streams = Mutex<[String: [String: (revision: Int, end: @Sendable () -> Void)]]>([:])
    /// What each granted scope string reaches: a token's scopes were parsed again on every
    /// request (a sixtieth of a search); the string is the whole key, so nothing goes stale.
    private let reaches = RepeatCache<String, TokenScopes>(limit: 64)

    init(tokens: AccessTokens, limiter: RateLimiter, consent: ConsentManager, pending: PendingRequests, webhooks: Webhooks, maxStreamsPerApp: Int) {
        self.tokens = tokens
        self.limiter = limiter
        self.consent = consent
        self.pending = pending
        self.webhooks = webhooks
        self.maxStreamsPerApp = maxStreamsPerApp
    }

    /// Checks a request's `Authorization: Bearer …` header: a live token for `audience`, issued
    /// under the app's current access revision, within the app's rate.
    ///
    /// - Throws: ``APIError/invalidToken`` (no detail: a revoked token looks like any other bad
    ///   one), ``APIError/rateLimited(retryAfterSeconds:)``, ``APIError/unavailable``.
    func authenticate(_ authorization: String?, audience: Audience, facts: RequestFacts) async throws(APIError) -> Caller {
        guard let header = authorization, header.count > 7, header.prefix(7).lowercased() == "bearer " else { throw .invalidToken }
        // Spaces and tabs around the token are ignored (Foundation's trimming took a fiftieth
        // of a search).
        var token = header.dropFirst(7)
        while let c = token.first, c == " " || c == "\t" { token.removeFirst() }
        while let c = token.last, c == " " || c == "\t" { token.removeLast() }
        let found: (entry: AccessTokens.Entry, app: StoredApp?, grants: [ReadGrant])?
        do { found = try await tokens.entry(for: String(token)) } catch { throw .unavailable }
        guard let (entry, row, grants) = found else { throw .invalidToken }
        // SMART tokens are for the FHIR API; the app API takes client-credentials tokens only.
        if audience == .appAPI, entry.scope != nil { throw .invalidToken }
        let (_, app) = await current(appID: entry.appID, revision: entry.revision, row: row)
        guard let stored = app else { throw .invalidToken }
        facts.appID = entry.appID
        if let wait = limiter.take(entry.appID) { throw .rateLimited(retryAfterSeconds: wait) }
        let view: AppView
        do { view = try await consent.view(of: stored, grants: grants) } catch { throw .unavailable }
        return Caller(view: view, revision: entry.revision, scopes: entry.scope.map(reach(of:)))
    }

    /// The reach of a token's scope string, parsed once it repeats.
    private func reach(of scope: String) -> TokenScopes {
        if let known = reaches.value(scope) { return known }
        let reach = TokenScopes(scope: scope)
        reaches.offer(reach, for: scope)
        return reach
    }

    /// Whether an app's access is still the one a token or stream was given under; when it was
    /// revoked since, ends here what it held under older revisions.
    func checkAccess(appID: String, revision: Int) async -> AccessCheck {
        await current(appID: appID, revision: revision).check
    }

    /// The check, and the app's row when it is current.
    private func current(appID: String, revision: Int) async -> (check: AccessCheck, app: StoredApp?) {
        let stored: StoredApp?
        do { stored = try await consent.store.app(id: appID) } catch { return (.unavailable, nil) }
        return await current(appID: appID, revision: revision, row: stored)
    }

    /// The check against the app's row as just read (`nil`: the app is gone).
    private func current(appID: String, revision: Int, row stored: StoredApp?) async -> (check: AccessCheck, app: StoredApp?) {
        guard let stored else {
            try? await endAllAccess(appID: appID)
            return (.revoked, nil)
        }
        guard stored.accessRevision == revision else {
            endAccess(appID: appID, before: stored.accessRevision)
            return (.revoked, nil)
        }
        return (.current, stored)
    }

    /// Counts an event stream opened by an app, with what ends it; `nil` when the app holds
    /// too many already, else the stream's id for ``closeStream(appID:id:)``.
    func openStream(appID: String, revision: Int, end: @escaping @Sendable () -> Void) -> String? {
        streams.withLock { map in
            guard map[appID, default: [:]].count < maxStreamsPerApp else { return nil }
            let id = SecretToken.make()
            map[appID, default: [:]][id] = (revision, end)
            return id
        }
    }

    /// Counts an event stream closed.
    func closeStream(appID: String, id: String) {
        streams.withLock { map in
            map[appID]?[id] = nil
            if map[appID]?.isEmpty == true { map[appID] = nil }
        }
    }

    /// Ends what an app holds in this process under access revisions older than `revision`:
    /// event streams and webhooks (what it was given after the revocation stays). Tokens carry
    /// the revision they were issued under and are checked against the app's current one on
    /// every use (and revoking deletes them from the store).
    func endAccess(appID: String, before revision: Int) {
        let closers: [@Sendable () -> Void] = streams.withLock { map in
            let old = (map[appID] ?? [:]).filter { $0.value.revision < revision }
            for id in old.keys { map[appID]?[id] = nil }
            if map[appID]?.isEmpty == true { map[appID] = nil }
            return old.values.map(\.end)
        }
        for close in closers { close() }
        webhooks.removeAll(appID: appID, before: revision)
    }

    /// Ends everything an app holds in this process, requests waiting for the person included:
    /// the person revoked it here.
    func endAllAccess(appID: String) async throws {
        endAccess(appID: appID, before: .max)
        try await pending.removeAll(appID: appID)
    }
}

