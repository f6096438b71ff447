import Foundation
import HealthStoreCore
import HealthStorePostgres
import PostgresNIO

/// The PostgreSQL server the tests use, named by `HEALTHRECORDS_POSTGRES_URL`; without it the
/// PostgreSQL engine is left out. One database object (one pool) serves every test.
enum PostgresTestDatabase {
    static let urlText: String? = ProcessInfo.processInfo.environment["HEALTHRECORDS_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    static var isConfigured: Bool { urlText != nil }

    /// A misspelt URL fails every PostgreSQL test loudly rather than skipping them.
    private static let database: Result<PostgresHealthDatabase, HealthStoreError>? = urlText.map { text in
        Result { () throws(HealthStoreError) in
            var url = try PostgresStoreURL(text)
            url.person = nil
            return try PostgresHealthDatabase(url: url)
        }
    }

    /// The shared database.
    static func shared() throws -> PostgresHealthDatabase {
        guard let database else { throw HealthStoreError.invalidArgument("HEALTHRECORDS_POSTGRES_URL is not set") }
        return try database.get()
    }

    /// The URL of the test server.
    static func url() throws -> PostgresStoreURL { try shared().url }

    /// A new, empty database on the test server (for migration tests, which must not touch the
    /// shared one); dropped by ``drop(_:)``.
    static func makeScratchDatabase() async throws -> PostgresStoreURL {
        var url = try url()
        let name = "healthrecords_scratch_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        try await admin { try await $0.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger) }
        url.database = name
        return url
    }

    /// Drops a scratch database (closing any connection left to it).
    static func drop(_ url: PostgresStoreURL) async throws {
        try await admin { try await $0.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(url.database) WITH (FORCE)"), logger: logger) }
    }

    /// Runs SQL as the test server's user on the shared database (for inspecting raw rows).
    @discardableResult
    static func admin<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let url = try url()
        let config = PostgresConnection.Configuration(host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: config, id: 1, logger: logger)
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    static let logger: Logger = {
        var l = Logger(label: "healthrecords.tests.postgres")
        l.logLevel = .critical
        return l
    }()
}
