import HealthStoreCore
import ServiceLifecycle

/// Writes the audit entries still waiting at a graceful shutdown, as a service of the
/// application: app reads are audited in batches (``ConsentStorage/flushAudit()``), and the last
/// batch of a server that stops must not be lost with the process.
struct AuditLogService: Service {
    let store: any ConsentStorage

    func run() async throws {
        // Cancellation (a forced stop) also ends the wait; the flush is tried either way.
        try? await gracefulShutdown()
        try await store.flushAudit()
    }
}
