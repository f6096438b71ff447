import Foundation
import HealthStoreCore
@testable import HealthStorePostgres
import Testing

/// A server's pool keeps its connections and sends no keep-alive queries, so no statement
/// leaves timers behind (see `PostgresHealthDatabase.poolOptions`); a command's pool is
/// postgres-nio's default. And a pool that keeps its connections serves more concurrent
/// statements than it has connections.
@Suite struct ServerPoolTests {
    @Test func aServersPoolKeepsItsConnectionsAndACommandsDoesNot() throws {
        var url = try PostgresStoreURL("postgres://u@127.0.0.1:5432/db?pool_size=7")
        let server = PostgresHealthDatabase.poolOptions(url, keepsConnections: true)
        #expect(server.maximumConnections == 7 && server.minimumConnections == 7)
        #expect(server.keepAliveBehavior == nil)
        let command = PostgresHealthDatabase.poolOptions(url, keepsConnections: false)
        #expect(command.maximumConnections == 7 && command.minimumConnections == 0)
        #expect(command.keepAliveBehavior != nil)
        url.poolSize = 1
        #expect(PostgresHealthDatabase.poolOptions(url, keepsConnections: true).minimumConnections == 1)
    }

    @Test(.enabled(if: PostgresTestDatabase.isConfigured, "HEALTHRECORDS_POSTGRES_URL is not set"))
    func aPoolThatKeepsItsConnectionsServesMoreStatementsThanConnections() async throws {
        var url = try PostgresTestDatabase.url()
        url.poolSize = 3
        let database = try PostgresHealthDatabase(url: url, keepsConnections: true)
        let store = try await PostgresHealthStore(database: database, person: "pool-\(UUID().uuidString.prefix(8))")
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<40 { group.addTask { try await store.count(RecordQuery(type: nil)) } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: 0, count: 40))
        await database.shutdown()
    }
}
