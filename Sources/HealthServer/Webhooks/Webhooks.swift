import ByteEncodings
import ClinicalRecords
import Crypto
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary
import Logging
import OutboundHTTP
import ProviderSync
import Synchronization

/// A webhook an app registered: where to post change notices, and for which types.
struct WebhookRegistration: Sendable {
    let id: String
    let appID: String
    let url: URL
    /// The clinical types to watch; `nil` for every type the app may read.
    let types: Set<ClinicalType>?
    let created: Date
    /// The app's access revision at registration: a revocation ends the webhook.
    let revision: Int
}

/// Background delivery: each webhook watches its app's view of the store (the same notices
/// as `GET /observe`, so denied types never fire) and posts each notice, retrying with
/// exponential backoff, signed with the app's secret.
///
/// Signature: `X-HealthRecords-Signature: t=UNIX_SECONDS,v1=HEX`, where HEX is
/// HMAC-SHA-256 over `UNIX_SECONDS + "." + body`, keyed with SHA-256 of the app's client
/// secret (the server keeps only that digest, never the secret). Registrations live in this
/// process's memory: after a restart the app registers again.
final class Webhooks: Sendable {
    private struct Entry: Sendable {
        let registration: WebhookRegistration
        let task: Task<Void, Never>
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let delivery: Delivery
    private let store: any HealthStore
    private let resolver: any HostResolver

    /// `turns` are the person's place among many people's background work (each post waits its
    /// turn, so one person's slow endpoints cannot hold everyone's deliveries); `nil` posts at once.
    init(
        sender: any WebhookSender, resolver: any HostResolver, policy: WebhookPolicy, store: any HealthStore, pollInterval: Duration, logger: Logger,
        turns: (any BackgroundTurns)? = nil, person: String = ""
    ) {
        self.delivery = Delivery(sender: sender, policy: policy, store: store, pollInterval: pollInterval, logger: logger, turns: turns, person: person)
        self.store = store
        self.resolver = resolver
    }

    deinit {
        entries.withLock { map in for e in map.values { e.task.cancel() } }
    }

    /// Registers a webhook and starts watching.
    ///
    /// The target is resolved and checked now, so an app learns at once that it is refused;
    /// the app is told only "not allowed" or "cannot be reached" (what a name resolves to on
    /// this server's network is not the app's business), the log gets the reason.
    func register(view: AppView, revision: Int, url: URL, types: Set<ClinicalType>?, maxPerApp: Int) async throws -> WebhookRegistration {
        do {
            _ = try await PinnedHTTPClient(policy: delivery.policy.outbound, resolver: resolver).vet(url)
        } catch {
            delivery.logger.notice("webhook target refused", metadata: ["app": "\(view.app.id)", "reason": "\(error)"])
            throw APIError.invalidRequest("url: the webhook target \(error.publicSummary == .notAllowed ? "is not allowed" : "cannot be reached")")
        }
        // Changes are announced from now on: the anchor is read before watching starts.
        let start = try await view.currentAnchor()
        let registration = WebhookRegistration(
            id: SecretToken.make(), appID: view.app.id, url: url, types: types, created: store.clock.now, revision: revision)
        let started: Bool = entries.withLock { map in
            guard map.values.filter({ $0.registration.appID == view.app.id }).count < maxPerApp else { return false }
            // The task holds the delivery settings, not this registry, so the registry's deinit
            // (the server going away) cancels every delivery.
            // A delivery that ends (its app revoked) leaves the registry, so it neither lingers
            // in the app's list nor counts against its cap.
            let task = Task { [delivery, weak self] in
                await delivery.run(registration, view: view, after: start)
                self?.forget(registration.id)
            }
            map[registration.id] = Entry(registration: registration, task: task)
            return true
        }
        guard started else { throw APIError.conflict("an app may register at most \(maxPerApp) webhooks") }
        return registration
    }

    /// Whether any app has a webhook here: they live in this process's memory, so a server for
    /// many people keeps this person's server open while there is one.
    var isEmpty: Bool { entries.withLock { $0.isEmpty } }

    /// An app's webhooks, oldest first.
    func list(appID: String) -> [WebhookRegistration] {
        entries.withLock { map in map.values.map(\.registration).filter { $0.appID == appID }.sorted { $0.created < $1.created } }
    }

    /// Removes one of an app's webhooks; `false` when it has none with that id.
    func remove(id: String, appID: String) -> Bool {
        let entry: Entry? = entries.withLock { map in
            guard let e = map[id], e.registration.appID == appID else { return nil }
            map[id] = nil
            return e
        }
        entry?.task.cancel()
        return entry != nil
    }

    private func forget(_ id: String) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }

    /// Ends an app's webhooks registered under access revisions older than `revision` (its
    /// access was revoked).
    func removeAll(appID: String, before revision: Int) {
        let gone: [Entry] = entries.withLock { map in
            let mine = map.values.filter { $0.registration.appID == appID && $0.registration.revision < revision }
            for e in mine { map[e.registration.id] = nil }
            return mine
        }
        for e in gone { e.task.cancel() }
    }

    /// Ends every delivery and waits for them to finish (the server is stopping).
    func stopAll() async {
        let all: [Entry] = entries.withLock { map in
            defer { map = [:] }
            return Array(map.values)
        }
        for e in all { e.task.cancel() }
        for e in all { await e.task.value }
    }

    /// The headers of one delivery, the signature among them.
    static func headers(body: Data, key: Data, time: Date, delivery: String) -> [String: String] {
        let t = String(Int(time.timeIntervalSince1970))
        var message = Data((t + ".").utf8)
        message.append(body)
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
        let hex = Hex.encode(mac)
        return [
            "Content-Type": "application/json",
            "X-HealthRecords-Signature": "t=\(t),v1=\(hex)",
            "X-HealthRecords-Delivery": delivery,
        ]
    }
}

/// What delivering needs: the sender, the policy, the store (for the app's secret digest) and
/// the log.
struct Delivery: Sendable {
    let sender: any WebhookSender
    let policy: WebhookPolicy
    let store: any HealthStore
    let pollInterval: Duration
    let logger: Logger
    /// Where each post waits its turn among many people's background work.
    var turns: (any BackgroundTurns)? = nil
    var person = ""

    /// Delivers the app's notices until the webhook is removed or the app's access is revoked
    /// (checked every poll, since a revoked app's view never fires again).
    func run(_ registration: WebhookRegistration, view: AppView, after start: QueryAnchor) async {
        let (store, poll) = (self.store, pollInterval)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await deliver(registration, view: view, after: start) }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: poll)
                    let app: StoredApp?
                    do { app = try await store.app(id: registration.appID) } catch { continue }  // unreadable now: no revocation
                    guard let app, app.accessRevision == registration.revision else { return }
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    private func deliver(_ registration: WebhookRegistration, view: AppView, after start: QueryAnchor) async {
        for await change in view.observe(types: registration.types, after: start, pollInterval: pollInterval) {
            if Task.isCancelled { break }
            let body = Data(EncodedJSON.object([
                ("webhook", .string(registration.id)),
                ("types", .array(change.types.sorted().map { .string($0.name) })),
                ("anchor", .string(view.anchorToken(change.anchor))),
            ]).bytes)
            guard await post(body, registration: registration) else { break }
        }
    }

    /// Posts one notice, retrying with backoff; `false` when the app's access was revoked
    /// (from any process) since the webhook was registered, which ends it without a delivery.
    /// The sender checks the target again on every attempt (a name may have moved since
    /// registration) at the moment it connects.
    func post(_ body: Data, registration: WebhookRegistration) async -> Bool {
        var wait = policy.initialBackoff
        for attempt in 1...max(1, policy.maxAttempts) {
            if Task.isCancelled { return false }
            guard let app = try? await store.app(id: registration.appID), app.accessRevision == registration.revision else { return false }
            let headers = Webhooks.headers(body: body, key: app.secretDigest, time: store.clock.now, delivery: SecretToken.make())
            let (sender, policy, url) = (self.sender, self.policy, registration.url)
            let send: @Sendable () async -> String? = {
                do throws(OutboundError) {
                    try await sender.post(url, body: body, headers: headers, policy: policy)
                    return nil
                } catch {
                    return error.description
                }
            }
            // The failure's reason, or nil when delivered.
            let failure = if let turns { await turns.run(for: person, send) } else { await send() }
            guard let reason = failure else { return true }
            logger.warning(
                "webhook delivery failed",
                metadata: ["webhook": "\(registration.id.prefix(8))", "app": "\(registration.appID)", "attempt": "\(attempt)", "reason": "\(reason)"])
            if attempt < policy.maxAttempts {
                try? await Task.sleep(for: wait)
                wait = wait * 2
            }
        }
        return true
    }
}
