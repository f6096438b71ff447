import Hummingbird
import Logging
import ServiceLifecycle

extension ServerAddress {
    /// The Hummingbird application a server runs over a responder — one person's routes or the
    /// front of a server for many — with its background services: HTTP/1 with the configured
    /// idle timeout, bound to the configured host and port. Once it listens, `onListening` hears
    /// the bound host and port, and without a public URL the links handed out use them.
    func application<Responder: HTTPResponder>(
        _ responder: Responder, services: [any Service], configuration: ServerConfiguration, logger: Logger,
        onListening: @escaping @Sendable (String, Int) async -> Void
    ) -> some ApplicationProtocol where Responder.Context == HealthRequestContext {
        let configured = configuration.publicBaseURL
        let host = configuration.host
        let idle = configuration.limits.idleTimeout
        return Application(
            responder: responder,
            server: .http1(configuration: .init(idleTimeout: .nanoseconds(Int64(idle.components.seconds) * 1_000_000_000))),
            configuration: ApplicationConfiguration(address: .hostname(host, port: configuration.port), serverName: "healthrecords"),
            services: services,
            onServerRunning: { [self] channel in
                let port = channel.localAddress?.port ?? 0
                if configured == nil { listening(host: host, port: port) }
                await onListening(host, port)
            },
            logger: logger)
    }
}
