import HealthStoreCore
import ServiceLifecycle

/// Writes the log entries still waiting at a graceful shutdown, as a service of the
/// application: app reads are audited in batches (``ConsentStorage/flushAudit()``), and so are
/// accesses to hosted links (``HostedLinkStorage/flushLinkAccess()``); the last batch of a server
/// that stops must not be lost with the process.
struct AuditLogService: Service {
    let store: any ConsentStorage & HostedLinkStorage

    func run() async throws {
        // Cancellation (a forced stop) also ends the wait; the flush is tried either way.
        try? await gracefulShutdown()
        var failure: (any Error)?
        do { try await store.flushAudit() } catch { failure = error }
        do { try await store.flushLinkAccess() } catch { failure = failure ?? error }
        if let failure { throw failure }
    }
}
