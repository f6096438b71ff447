import Foundation
import HealthStoreCore

/// Syncs providers in the background of a long-running process (the server): every connected
/// provider at an interval, and one provider when the person asks ("Sync now"). One sync per
/// provider at a time; a sync that fails leaves its checkpoint for the next.
public actor SyncScheduler {
    private let syncer: ProviderSyncer
    private let options: SyncOptions
    private var running = Set<String>()
    private var reports: [String: SyncReport] = [:]
    private let turns: (any BackgroundTurns)?
    private let person: String

    /// Makes a scheduler; nothing runs until ``syncNow(_:)`` or ``runEvery(_:)``.
    ///
    /// - Parameter turns: in a server for many people, the turns every person's syncs share
    ///   (`person` names whose these are); each sync waits for its turn there.
    public init(syncer: ProviderSyncer, options: SyncOptions = SyncOptions(), turns: (any BackgroundTurns)? = nil, person: String = "") {
        self.syncer = syncer
        self.options = options
        self.turns = turns
        self.person = person
    }

    /// Starts a provider's sync unless one is running; answers whether it started.
    @discardableResult
    public func syncNow(_ id: String) -> Bool {
        guard running.insert(id).inserted else { return false }
        Task { await self.runOne(id) }
        return true
    }

    /// Whether a provider's sync is running.
    public func isRunning(_ id: String) -> Bool { running.contains(id) }

    /// The last report of each provider synced in this process.
    public func lastReport(_ id: String) -> SyncReport? { reports[id] }

    /// Syncs every connected provider now and then every `interval`, until cancelled.
    public func runEvery(_ interval: Duration) async {
        while !Task.isCancelled {
            await syncConnected()
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }

    /// Syncs every connected provider that is not syncing already, one after another; returns
    /// how many were synced.
    @discardableResult
    public func syncConnected() async -> Int {
        let providers = (try? await syncer.store.providers()) ?? []
        var count = 0
        for p in providers where p.status == .connected && !running.contains(p.id) {
            running.insert(p.id)
            await runOne(p.id)
            count += 1
        }
        return count
    }

    private func runOne(_ id: String) async {
        let syncer = self.syncer
        let options = self.options
        let report: SyncReport
        if let turns {
            report = await turns.run(for: person) { await syncer.sync(providerID: id, options: options) }
        } else {
            report = await syncer.sync(providerID: id, options: options)
        }
        reports[id] = report
        running.remove(id)
    }
}
