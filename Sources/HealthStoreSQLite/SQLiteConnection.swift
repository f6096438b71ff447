import CSQLite
import Foundation
import HealthStoreCore

/// An error SQLite returned, with its result code.
struct SQLiteError: Error, CustomStringConvertible {
    let code: Int32
    let message: String

    var isBusy: Bool { code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED }
    var description: String { message }
}

/// One SQLite connection with a small cache of prepared statements. Used by one task at a time
/// (the database hands it out), so it opens in multi-thread mode, without SQLite's own mutex.
final class SQLiteConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    private var cache: [String: OpaquePointer] = [:]
    /// Batches of different sizes make different statements; beyond this many the cache starts over.
    private static let cacheLimit = 64

    /// - Parameter create: whether a missing file is created (a checkpoint's connection must not
    ///   bring back a file that was deleted meanwhile).
    init(path: String, busyTimeout: TimeInterval, create: Bool = true) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw SQLiteError(code: status, message: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        // Closing must not copy the log into the file: a command that just stored a 5 MB page
        // would wait for that copy and two fsyncs before it could exit. The log stays (SQLite
        // reads it back on the next open) until ``WALCheckpointer`` copies it when writes pause.
        healthrecords_sqlite3_keep_log_on_close(db)
        sqlite3_busy_timeout(db, Int32(max(0, min(busyTimeout * 1000, Double(Int32.max)))))
        // Deleted rows must not linger in free pages: delete is meant to remove data.
        try execute("PRAGMA secure_delete = ON; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON")
        // A server reads the same pages request after request: let each connection cache up to
        // 32 MiB (it grows only as pages are read) instead of SQLite's 2 MiB.
        try execute("PRAGMA cache_size = -32768")
    }

    /// Calls `hook` after each commit with the write-ahead log's length in pages; this turns
    /// off SQLite's own checkpoint at commit (see ``WALCheckpointer``).
    func onCommit(_ context: UnsafeMutableRawPointer, _ hook: @escaping @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32) {
        sqlite3_wal_hook(handle, hook, context)
    }

    /// Copies what it can of the write-ahead log into the file without waiting for anyone.
    func checkpointPassive() {
        sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }

    /// Copies the whole log into the file and empties it; `false` when another connection's
    /// checkpoint or a reader's older snapshot stood in the way (`PRAGMA wal_checkpoint` reports
    /// that only in a row, which is easy to miss).
    func checkpointTruncate() throws -> Bool {
        let status = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
        if status == SQLITE_OK { return true }
        if status & 0xFF == SQLITE_BUSY || status & 0xFF == SQLITE_LOCKED { return false }
        throw failure(status)
    }

    deinit {
        for statement in cache.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs SQL text that may hold several statements and binds nothing (DDL, pragmas).
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: status, message: text)
        }
    }

    /// Runs one statement with its values and collects its rows.
    func rows(_ sql: String, _ values: [SQLValue]) throws -> [SQLRow] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (i, value) in values.enumerated() { try bind(value, at: Int32(i + 1), statement) }
        var rows: [SQLRow] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { throw failure(status) }
            let count = sqlite3_column_count(statement)
            var cells: [SQLCell] = []
            cells.reserveCapacity(Int(count))
            for c in 0..<count { cells.append(cell(statement, c)) }
            rows.append(SQLRow(cells))
        }
    }

    /// Runs one statement once per row of values (after the `fixed` ones), prepared once, text
    /// and blobs bound in place; any rows are ignored.
    func runEach(_ sql: String, fixed: ArraySlice<SQLValue>, _ rows: [[SQLValue]]) throws {
        try runEach(sql, fixed: fixed, count: rows.count) { i, row in try row.run(binding: rows[i][...]) }
    }

    /// Runs one statement for `count` rows that `row` binds and runs (after the `fixed`
    /// values), prepared once; text and blobs are bound in place. Any rows are ignored.
    func runEach(_ sql: String, fixed: ArraySlice<SQLValue>, count: Int, row: (Int, inout any SQLRowBinding) throws -> Void) throws {
        let statement = try prepared(sql)
        defer { sqlite3_clear_bindings(statement) }
        for (i, value) in fixed.enumerated() { try bind(value, at: Int32(i + 1), statement) }
        var binding: any SQLRowBinding = InPlaceBinding(connection: self, statement: statement, first: Int32(fixed.count + 1))
        for i in 0..<count { try row(i, &binding) }
    }

    private func prepared(_ sql: String) throws -> OpaquePointer {
        if let statement = cache[sql] { return statement }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw failure(status) }
        if cache.count >= Self.cacheLimit {
            for old in cache.values { sqlite3_finalize(old) }
            cache = [:]
        }
        cache[sql] = statement
        return statement
    }

    private func bind(_ value: SQLValue, at index: Int32, _ statement: OpaquePointer) throws {
        let status: Int32
        switch value {
        case .int(let v?): status = sqlite3_bind_int64(statement, index, v)
        case .double(let v?): status = sqlite3_bind_double(statement, index, v)
        case .text(let v?): status = sqlite3_bind_text(statement, index, v, -1, Self.transient)
        case .blob(let v?):
            status = v.withUnsafeBytes { bytes in
                // A zero-length blob still binds as a blob, not NULL.
                sqlite3_bind_blob(statement, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), Self.transient)
            }
        case .int(nil), .double(nil), .text(nil), .blob(nil): status = sqlite3_bind_null(statement, index)
        }
        guard status == SQLITE_OK else { throw failure(status) }
    }

    private func cell(_ statement: OpaquePointer, _ column: Int32) -> SQLCell {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .int(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .double(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let text = sqlite3_column_text(statement, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    func failure(_ status: Int32) -> SQLiteError {
        SQLiteError(code: status, message: String(cString: sqlite3_errmsg(handle)))
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
