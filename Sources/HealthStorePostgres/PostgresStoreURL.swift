import Foundation
import HealthStoreCore

/// Where a PostgreSQL store lives and whose it is, read from a URL such as
/// `postgres://user:secret@127.0.0.1:5433/health?person=alice`.
///
/// - The scheme is `postgres` or `postgresql`; the user defaults to `postgres`, the port to
///   5432, the database to the user's name.
/// - `person` names the person whose store it is (many people share one database). It may be
///   left out of the URL and given separately (``PostgresHealthStore``'s `person`).
/// - `sslmode` is `disable` or `require` (TLS with certificate and host name checks). Without
///   it, loopback hosts (`127.0.0.0/8`, `::1`, `localhost`) are reached in the clear and every
///   other host needs TLS: health data does not cross a network unencrypted by default.
/// - `pool_size` caps the connections the store opens (default 10).
///
/// The password is never shown: ``description`` and every error name the store by
/// ``redacted``.
public struct PostgresStoreURL: Sendable, Hashable, CustomStringConvertible {
    /// How the connection is protected.
    public enum TLSMode: String, Sendable, Hashable {
        /// In the clear.
        case disable
        /// TLS, with the server's certificate and name checked.
        case require
    }

    /// The server's host name or address.
    public var host: String
    /// The server's port; 5432 when the URL gives none.
    public var port: Int
    /// The user to connect as; `postgres` when the URL gives none.
    public var user: String
    /// The password, if any; ``description`` and errors never show it (they use ``redacted``).
    public var password: String?
    /// The database to use; the user's name when the URL gives none.
    public var database: String
    /// The person named in the URL, if any.
    public var person: String?
    /// How the connection is protected.
    public var tls: TLSMode
    /// The most connections a store's pool opens.
    public var poolSize: Int

    /// Reads a URL.
    ///
    /// - Throws: ``HealthStoreError/invalidArgument(_:)`` naming what is wrong (never the password).
    public init(_ text: String) throws(HealthStoreError) {
        guard let c = URLComponents(string: text), let scheme = c.scheme?.lowercased(), ["postgres", "postgresql"].contains(scheme) else {
            throw .invalidArgument("a PostgreSQL URL looks like postgres://user:password@host:port/database?person=ID")
        }
        guard let host = c.host, !host.isEmpty else { throw .invalidArgument("the PostgreSQL URL names no host") }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = c.port ?? 5432
        guard (1...65535).contains(port) else { throw .invalidArgument("the PostgreSQL port \(port) is out of range") }
        user = c.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? "postgres"
        password = c.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        let path = c.percentEncodedPath.removingPercentEncoding ?? ""
        let name = path.hasPrefix("/") ? String(path.dropFirst()) : path
        database = name.isEmpty ? user : name
        person = nil
        poolSize = 10
        var tls: TLSMode?
        for item in c.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "person":
                person = try Self.checkedPerson(value)
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else { throw .invalidArgument("sslmode must be disable or require, not \(value)") }
                tls = mode
            case "pool_size":
                guard let n = Int(value), (1...100).contains(n) else { throw .invalidArgument("pool_size must be 1 to 100, not \(value)") }
                poolSize = n
            default:
                throw .invalidArgument("unknown PostgreSQL URL option \(item.name) (known: person, sslmode, pool_size)")
            }
        }
        self.tls = tls ?? (Self.isLoopback(self.host) ? .disable : .require)
    }

    /// The URL without its password or person: what messages name.
    public var redacted: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(user)@\(h):\(port)/\(database)"
    }

    public var description: String { redacted }

    /// Checks a person identifier: 1 to 200 characters, none of them control characters.
    public static func checkedPerson(_ person: String) throws(HealthStoreError) -> String {
        guard !person.isEmpty, person.count <= 200, !person.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidArgument("a person identifier has 1 to 200 characters and no control characters")
        }
        return person
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
