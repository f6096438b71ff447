import ServiceLifecycle

/// Runs the webhooks' deliveries for the application's lifetime: at a graceful shutdown every
/// delivery is cancelled and awaited, so none posts after the server has stopped.
struct WebhookService: Service {
    let webhooks: Webhooks

    func run() async throws {
        try? await gracefulShutdown()
        await webhooks.stopAll()
    }
}
