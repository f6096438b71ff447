import Foundation
import HealthStoreCore
@testable import HealthStorePostgres
import Synchronization
import Testing

/// The group commit of log rows on a shared PostgreSQL database: many people's stores flushing
/// their audit entries at once all get them written, each in their own log and nobody else's;
/// and one person's failing batch (their row removed under them) does not keep the others'
/// entries out.
@Suite(.enabled(if: PostgresTestDatabase.isConfigured, "HEALTHRECORDS_POSTGRES_URL is not set"))
struct SharedLogWriterTests {
    static func entry(_ app: String, _ n: Int) -> AuditEntry {
        AuditEntry(appID: app, date: Date(timeIntervalSince1970: 1_700_000_000 + Double(n)), operation: "read", types: [.clinical(.labResult)], count: n)
    }

    @Test func manyPeoplesEntriesCommitTogetherEachInTheirOwnLog() async throws {
        let database = try PostgresTestDatabase.shared()
        let people = (0..<24).map { "log-\($0)-\(UUID().uuidString.prefix(8))" }
        var stores: [PostgresHealthStore] = []
        for p in people { stores.append(try await PostgresHealthStore(database: database, person: p)) }
        for (i, store) in stores.enumerated() {
            for n in 0..<3 { try await store.appendAudit(Self.entry("app-\(i)", n)) }
        }
        let all = stores
        try await withThrowingTaskGroup(of: Void.self) { group in
            for store in all { group.addTask { try await store.flushAudit() } }
            try await group.waitForAll()
        }
        for (i, store) in stores.enumerated() {
            let log = try await store.auditEntries(appID: nil)
            #expect(log.count == 3 && log.allSatisfy { $0.appID == "app-\(i)" }, "person \(i): \(log.map(\.appID))")
        }
    }

    /// Many people's rows of a table go in a few statements (a statement per row fell seconds
    /// behind a busy server's reads), each row still in its own person's log.
    @Test func manyPeoplesRowsShareStatements() async throws {
        let database = try PostgresTestDatabase.shared()
        let writer = SharedLogWriter(gather: .milliseconds(200))
        let people = (0..<24).map { "rows-\($0)-\(UUID().uuidString.prefix(8))" }
        var stores: [PostgresHealthStore] = []
        for p in people { stores.append(try await PostgresHealthStore(database: database, person: p)) }
        let columns = ["app_id", "date", "operation", "data_types", "record_count"]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, person) in people.enumerated() {
                var rows = LogInsert(.postgres(person: person), table: "audit_entry", columns: columns)
                for n in 0..<3 { rows.append([.text("app-\(i)"), .double(1_700_000_000 + Double(n)), .text("read"), .text(ConsentCoding.typeList([.clinical(.labResult)])), .int(Int64(n))]) }
                let final = rows
                group.addTask { try await writer.write(final, on: database, lockTimeout: .seconds(5)) }
            }
            try await group.waitForAll()
        }
        // 72 rows: 64 + 4 + 4 in one shared transaction; a second if the machine was slow to start
        // them. (A shared transaction that failed counts nothing: each store's rows went alone.)
        #expect(writer.transactions >= 1 && (3...6).contains(writer.statements), "\(writer.statements) statements in \(writer.transactions) transactions")
        for (i, store) in stores.enumerated() {
            let log = try await store.auditEntries(appID: nil)
            #expect(log.map(\.appID) == Array(repeating: "app-\(i)", count: 3) && log.map(\.count) == [0, 1, 2], "person \(i): \(log)")
        }
    }

    /// A request that waits for the log (a person reading theirs) flushes its store's rows in
    /// statements of that person alone, even while other people's rows wait: only the
    /// background flush at a tick, which no request waits on, merges people's rows.
    @Test func aReadersFlushWritesItsPersonsRowsAlone() async throws {
        // A tick an hour away: every flush here is a reader's.
        let database = try PostgresHealthDatabase(url: try PostgresTestDatabase.url(), logDelay: .seconds(3600))
        try await database.migrate()
        let seen = Mutex<[SQLStatement]>([])
        database.observeStatements { statement in seen.withLock { $0.append(statement) } }
        let people = (0..<8).map { "reader-\($0)-\(UUID().uuidString.prefix(8))" }
        var stores: [PostgresHealthStore] = []
        for p in people { stores.append(try await PostgresHealthStore(database: database, person: p)) }
        for (i, store) in stores.enumerated() {
            for n in 0..<3 { try await store.appendAudit(Self.entry("app-\(i)", n)) }
        }
        let all = stores
        let logs = try await withThrowingTaskGroup(of: (Int, [AuditEntry]).self) { group in
            for (i, store) in all.enumerated() { group.addTask { (i, try await store.auditEntries(appID: nil)) } }
            return try await group.reduce(into: [Int: [AuditEntry]]()) { $0[$1.0] = $1.1 }
        }
        await database.shutdown()
        for i in people.indices {
            #expect(logs[i]?.map(\.appID) == Array(repeating: "app-\(i)", count: 3), "person \(i): \(logs[i] ?? [])")
        }
        let inserts = seen.withLock { $0 }.filter { $0.text.hasPrefix("INSERT INTO audit_entry") }
        #expect(!inserts.isEmpty)
        for insert in inserts {
            let width = insert.text.split(separator: "(", maxSplits: 2)[1].split(separator: ")")[0].split(separator: ",").count
            let persons = Set(stride(from: 0, to: insert.values.count, by: width).map { insert.values[$0] })
            #expect(persons.count == 1, "\(persons.count) people in \(insert.text)")
        }
    }

    /// Batches that come while the writer pauses after a transaction go in the next one
    /// together: twenty batches sent while it pauses after a first one make one more
    /// transaction, not twenty (a third if the machine was slow to start them).
    @Test func batchesComingDuringThePauseShareOneTransaction() async throws {
        let database = try PostgresTestDatabase.shared()
        // A pause long enough for twenty tasks to start on a busy machine.
        let writer = SharedLogWriter(gather: .seconds(2))
        let statement = SQLStatement(PostgresHealthDatabase.unscoped, "SELECT 1")
        try await writer.write([statement], on: database, lockTimeout: .seconds(5))
        #expect(writer.transactions == 1)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask { try await writer.write([statement, statement], on: database, lockTimeout: .seconds(5)) }
            }
            try await group.waitForAll()
        }
        #expect((2...3).contains(writer.transactions), "\(writer.transactions) transactions")
    }

    @Test func onePersonsFailureDoesNotKeepOthersOut() async throws {
        let database = try PostgresTestDatabase.shared()
        let registry = PostgresPeople(database: database)
        let gone = try await registry.add(name: "Gone")
        let goneStore = try await PostgresHealthStore(database: database, person: gone.id)
        let staying = try await PostgresHealthStore(database: database, person: "log-stays-\(UUID().uuidString.prefix(8))")
        try await goneStore.appendAudit(Self.entry("app-gone", 1))
        try await staying.appendAudit(Self.entry("app-stays", 1))
        #expect(try await registry.remove(id: gone.id))
        // Flushed together: the removed person's row violates its foreign key; the other's is written.
        let outcomes = await withTaskGroup(of: (String, Bool).self) { group in
            group.addTask { (("gone", (try? await goneStore.flushAudit()) != nil)) }
            group.addTask { (("stays", (try? await staying.flushAudit()) != nil)) }
            return await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
        }
        #expect(outcomes == ["gone": false, "stays": true])
        #expect(try await staying.auditEntries(appID: nil).map(\.appID) == ["app-stays"])
    }
}
