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

    /// Makes a scheduler; nothing runs until ``syncNow(_:)`` or ``runEvery(_:)``.
    public init(syncer: ProviderSyncer, options: SyncOptions = SyncOptions()) {
        self.syncer = syncer
        self.options = options
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
            let providers = (try? await syncer.store.providers()) ?? []
            for p in providers where p.status == .connected && !running.contains(p.id) {
                running.insert(p.id)
                await runOne(p.id)
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }

    private func runOne(_ id: String) async {
        let report = await syncer.sync(providerID: id, options: options)
        reports[id] = report
        running.remove(id)
    }
}
