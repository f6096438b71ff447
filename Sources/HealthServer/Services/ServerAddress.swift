import Synchronization

/// The base of the links the server hands out (`http://127.0.0.1:8080`, no trailing slash):
/// the configured public URL, else the address the server is bound to, known once it listens.
final class ServerAddress: Sendable {
    private let base: Mutex<String>

    init(configuration: ServerConfiguration) {
        let host = configuration.host
        base = Mutex(configuration.publicBaseURL.map(Self.trimmed) ?? Self.local(host: host, port: configuration.port))
    }

    /// The base URL, without a trailing slash.
    var baseURL: String { base.withLock { $0 } }

    /// The bound address, once the server listens (only when no public URL is configured).
    func listening(host: String, port: Int) {
        base.withLock { $0 = Self.local(host: host, port: port) }
    }

    private static func local(host: String, port: Int) -> String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    private static func trimmed(_ url: String) -> String { url.hasSuffix("/") ? String(url.dropLast()) : url }
}
