import Foundation
import HealthStoreCore
@testable import HealthStorePostgres
import PostgresNIO
import Testing

/// Which statement texts run prepared: a name from the second time a text comes, the same name
/// afterwards, none past the limit, none again for a text whose prepared run failed.
@Suite struct PreparedStatementNamingTests {
    @Test func aTextIsNamedTheSecondTimeItComesAndKeepsItsName() {
        let prepared = PreparedStatements(limit: 3)
        #expect(prepared.name(for: "a") == nil)
        let a = prepared.name(for: "a")
        #expect(a != nil && prepared.name(for: "a") == a)
        #expect(prepared.name(for: "b") == nil)
        let b = prepared.name(for: "b")
        #expect(b != nil && b != a)
        // A refused text never gets a name again (its connection may keep a failed preparation),
        // and its name is never given to another text (connections keep what they prepared).
        prepared.refuse("a")
        #expect(prepared.name(for: "a") == nil && prepared.name(for: "a") == nil)
        #expect(prepared.name(for: "c") == nil)
        let c = prepared.name(for: "c")
        #expect(c != nil && c != a && c != b)
        // Past the limit of names ever given: every other text runs unprepared.
        #expect(prepared.name(for: "d") == nil && prepared.name(for: "d") == nil)
        #expect(prepared.preparedCount == 2)
    }
}

/// On a real server: a store's repeated statement is prepared on the connection (it is in
/// `pg_prepared_statements`) and answers as it did unprepared.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, "HEALTHRECORDS_POSTGRES_URL is not set"))
struct PreparedStatementTests {
    @Test func aRepeatedStatementRunsPreparedWithTheSameAnswers() async throws {
        // One connection, so the server's list of prepared statements is the pool's.
        var url = try PostgresTestDatabase.url()
        url.poolSize = 1
        let database = try PostgresHealthDatabase(url: url)
        let store = try await PostgresHealthStore(database: database, person: "prepared-\(UUID().uuidString.prefix(8))")
        let (app, _) = try ConsentManager.newApp(
            name: "Chart", purpose: "Charts", privacyPolicyURL: URL(string: "https://example.org/privacy")!, requestedTypes: [.clinical(.labResult)],
            date: Date(timeIntervalSince1970: 1_700_000_000))
        try await store.saveApp(app)
        var answers: [String?] = []
        for _ in 0..<4 { answers.append(try await store.app(id: app.registration.id)?.registration.name) }
        #expect(answers == Array(repeating: "Chart", count: 4))
        #expect(try await store.app(id: "no-such-app") == nil)
        #expect(database.prepared.preparedCount >= 1)
        let names = try await database.client.withConnection { connection in
            try await connection.query("SELECT name FROM pg_prepared_statements", logger: database.logger).collect().map { try $0.decode(String.self) }
        }
        #expect(names.contains { $0.hasPrefix("hr_") }, "\(names)")
        await database.shutdown()
    }
}
