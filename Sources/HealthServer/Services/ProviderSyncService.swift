import ProviderSync
import ServiceLifecycle

/// Syncs every connected provider at an interval, as a service of the application: it starts
/// with the server and stops at its graceful shutdown.
struct ProviderSyncService: Service {
    let scheduler: SyncScheduler
    let interval: Duration

    func run() async throws {
        let scheduler = self.scheduler
        let interval = self.interval
        await cancelWhenGracefulShutdown { await scheduler.runEvery(interval) }
    }
}
