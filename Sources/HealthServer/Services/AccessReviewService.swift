import HealthStoreCore
import Logging
import ServiceLifecycle

/// Ends app access nobody confirmed, as a service of the application: at start and then at an
/// interval, when the person turned it on, every app whose review has been due for
/// ``AccessReviewSettings/graceDays`` days loses its grants (as a revocation; written to its
/// audit log), and what it holds in this process ends.
struct AccessReviewService: Service {
    let consent: ConsentManager
    let access: AppAccess
    let interval: Duration
    let logger: Logger
    /// How long to wait before the first pass: in a server for many people a random part of the
    /// interval, so that opening many people at once does not start all their passes together.
    var firstDelay: Duration = .zero

    func run() async throws {
        let consent = self.consent
        let access = self.access
        let interval = self.interval
        let logger = self.logger
        let firstDelay = self.firstDelay
        await cancelWhenGracefulShutdown {
            if firstDelay > .zero { try? await Task.sleep(for: firstDelay) }
            while !Task.isCancelled {
                do {
                    let ended = try await consent.endUnconfirmedAccess()
                    for id in ended { try await access.endAllAccess(appID: id) }
                    if !ended.isEmpty { logger.info("unconfirmed app access ended", metadata: ["count": "\(ended.count)"]) }
                } catch {
                    logger.warning("unconfirmed app access could not be ended", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
