import HealthStoreCore
import Logging
import ProviderSync
import ServiceLifecycle

/// Ends hosted links past their expiry, as a service of the application: at start and then at
/// an interval, their files, keys and passcode hashes are deleted and spent or stale locations
/// swept. An expired link is refused on every request anyway (its state is read each time);
/// this makes sure what it held does not stay on disk.
struct HostedLinkSweepService: Service {
    let store: any HostedLinkStorage & HealthStore
    let interval: Duration
    let logger: Logger
    /// How long to wait before the first pass: in a server for many people a random part of the
    /// interval, so that opening many people at once does not start all their passes together.
    var firstDelay: Duration = .zero
    /// Where each pass waits its turn among many people's background work (``FairTurns``).
    var turns: (any BackgroundTurns)? = nil
    var person = ""

    func run() async throws {
        let store = self.store
        let interval = self.interval
        let logger = self.logger
        let (firstDelay, turns, person) = (self.firstDelay, self.turns, self.person)
        let pass: @Sendable () async -> Void = {
            do {
                let ended = try await store.endExpiredHostedLinks(at: store.clock.now)
                if ended > 0 { logger.info("expired links ended", metadata: ["count": "\(ended)"]) }
            } catch {
                logger.warning("expired links could not be ended", metadata: ["error": "\(error)"])
            }
        }
        await cancelWhenGracefulShutdown {
            if firstDelay > .zero { try? await Task.sleep(for: firstDelay) }
            while !Task.isCancelled {
                if let turns { await turns.run(for: person, pass) } else { await pass() }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
