import Dispatch
import Foundation
import HealthStoreCore
import Synchronization

/// One SQLite file in WAL mode: a write connection taken in turns, and read connections made
/// as needed, so reads run beside a write.
///
/// Statements run on the calling task: inside a transaction nothing waits on another process
/// (the write lock is taken by `BEGIN IMMEDIATE` first, off Swift's cooperative pool, and WAL
/// readers never wait).
final class SQLiteDatabase: StoreDatabase {
    let path: String
    let busyTimeout: TimeInterval
    let dialect = SQLDialect.sqlite
    var location: String { path }
    private let writer: SQLiteConnection
    private let turns = WriteTurns()
    private let readers = Mutex<[SQLiteConnection]>([])
    private let checkpointer: WALCheckpointer

    /// Opens (creating when missing) the file, owner-only, and brings its schema up to date.
    init(path: String, busyTimeout: TimeInterval) throws(HealthStoreError) {
        self.path = path
        self.busyTimeout = busyTimeout
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try OwnerOnlyFiles.makeDirectory(directory) }
        try OwnerOnlyFiles.prepareDatabase(path)
        do {
            // A new (empty) file is switched to WAL by whoever opens it first; processes
            // opening it at the same moment take turns, as they do for the migrations.
            let isNew = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) == 0
            let open = {
                let connection = try SQLiteConnection(path: path, busyTimeout: busyTimeout)
                try SQLiteSchema.useLog(connection)
                return connection
            }
            writer = isNew ? try MigrationLock.withLock(storePath: path, timeout: busyTimeout, open) : try open()
            try SQLiteSchema.migrate(writer, path: path, busyTimeout: busyTimeout)
            checkpointer = WALCheckpointer(path: path, busyTimeout: busyTimeout)
            checkpointer.watch(writer)
        } catch {
            throw (Self.map(error, path: path) as? HealthStoreError) ?? .cannotOpen(path: path, reason: "\(error)")
        }
    }

    func read<T: Sendable>(_ body: (any SQLSession) async throws -> T) async throws -> T {
        try await withReader { try await body(Session(connection: $0)) }
    }

    func snapshot<T: Sendable>(_ body: (any SQLSession) async throws -> T) async throws -> T {
        try await withReader { connection in
            try connection.execute("BEGIN")
            return try await Self.finish(connection, body)
        }
    }

    func transaction<T: Sendable>(_ body: (any SQLSession) async throws -> T) async throws -> T {
        await turns.take()
        defer { turns.give() }
        let writer = self.writer
        // Waiting for another process's write happens on a thread of its own.
        try await Self.offPool { try writer.execute("BEGIN IMMEDIATE") }
        return try await Self.finish(writer, body)
    }

    /// A transaction whose commit fsyncs the log: with `synchronous = NORMAL` a commit is
    /// durable only after the next checkpoint, and nothing checkpoints when a command exits.
    func durableTransaction<T: Sendable>(_ body: (any SQLSession) async throws -> T) async throws -> T {
        await turns.take()
        defer { turns.give() }
        let writer = self.writer
        try await Self.offPool {
            try writer.execute("PRAGMA synchronous = FULL")
            do { try writer.execute("BEGIN IMMEDIATE") } catch {
                try? writer.execute("PRAGMA synchronous = NORMAL")
                throw error
            }
        }
        defer { try? writer.execute("PRAGMA synchronous = NORMAL") }
        return try await Self.finish(writer, body)
    }

    /// Runs the body of an open transaction, then commits it, or rolls it back on a throw.
    private static func finish<T>(_ connection: SQLiteConnection, _ body: (any SQLSession) async throws -> T) async throws -> T {
        do {
            let result = try await body(Session(connection: connection))
            try connection.execute("COMMIT")
            return result
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Lends a read connection (made when none is free) for one operation.
    private func withReader<T>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        let connection: SQLiteConnection
        if let free = readers.withLock({ $0.popLast() }) {
            connection = free
        } else {
            do { connection = try SQLiteConnection(path: path, busyTimeout: busyTimeout) } catch { throw mapError(error) }
        }
        defer { readers.withLock { $0.append(connection) } }
        return try await body(connection)
    }

    deinit {
        checkpointer.close()
    }

    func scrub(vacuum: Bool) async throws {
        await turns.take()
        defer { turns.give() }
        let writer = self.writer
        let checkpointer = self.checkpointer
        let patience = min(1, busyTimeout)
        try await Self.offPool {
            if vacuum { try writer.execute("VACUUM") }
            // Moves every WAL frame into the file and empties the WAL, so old page images
            // (deleted rows included) do not linger there. This process's own checkpoint is
            // waited for; another process's checkpoint or a reader's older snapshot is given up
            // to a second, then left (the next deletion or checkpoint moves the frames).
            let deadline = Date().addingTimeInterval(patience)
            while try !checkpointer.withoutCheckpoints({ try writer.checkpointTruncate() }), Date() < deadline {
                usleep(10_000)
            }
        }
    }

    func mapError(_ error: any Error) -> any Error { Self.map(error, path: path) }

    /// SQLite's errors become ``HealthStoreError``s; anything else (a producer's) passes through.
    static func map(_ error: any Error, path: String) -> any Error {
        guard let e = error as? SQLiteError else { return error }
        if e.isBusy { return HealthStoreError.storeBusy(path: path) }
        return HealthStoreError.database(e.message)
    }

    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// A connection lent for one operation.
    private struct Session: SQLSession {
        let connection: SQLiteConnection

        func rows(_ statement: SQLStatement) async throws -> [SQLRow] { try connection.rows(statement.text, statement.values) }
        func run(_ statement: SQLStatement) async throws { _ = try connection.rows(statement.text, statement.values) }
        func runEach(_ statement: SQLStatement, _ rows: [[SQLValue]]) async throws { try connection.runEach(statement.text, fixed: statement.fixedValues, rows) }
        func runEach(_ statement: SQLStatement, count: Int, row: (Int, inout any SQLRowBinding) throws -> Void) async throws {
            try connection.runEach(statement.text, fixed: statement.fixedValues, count: count, row: row)
        }
    }
}
