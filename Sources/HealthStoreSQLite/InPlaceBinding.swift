import CSQLite
import HealthStoreCore

/// Binds a row's values straight into a prepared statement (`SQLITE_STATIC`: the caller
/// keeps them alive until ``run()``).
struct InPlaceBinding: SQLRowBinding {
    let connection: SQLiteConnection
    let statement: OpaquePointer
    let first: Int32
    private var index: Int32
    private var status = SQLITE_OK
    /// Where empty text points (static memory).
    private static let emptyText: StaticString = ""

    init(connection: SQLiteConnection, statement: OpaquePointer, first: Int32) {
        (self.connection, self.statement, self.first, index) = (connection, statement, first, first)
    }

    private mutating func next(_ bound: Int32) {
        if status == SQLITE_OK { status = bound }
        index += 1
    }

    mutating func bind(_ value: Int64?) { next(value.map { sqlite3_bind_int64(statement, index, $0) } ?? sqlite3_bind_null(statement, index)) }
    mutating func bind(_ value: Double?) { next(value.map { sqlite3_bind_double(statement, index, $0) } ?? sqlite3_bind_null(statement, index)) }

    mutating func bindText(_ utf8: UnsafeRawBufferPointer?) {
        guard let utf8 else { return next(sqlite3_bind_null(statement, index)) }
        // Empty text is text, not NULL: SQLite needs a pointer for it.
        let start = utf8.baseAddress ?? UnsafeRawPointer(InPlaceBinding.emptyText.utf8Start)
        next(sqlite3_bind_text(statement, index, start.assumingMemoryBound(to: CChar.self), Int32(utf8.count), nil))
    }

    mutating func bindBlob(_ bytes: UnsafeRawBufferPointer?) {
        guard let bytes else { return next(sqlite3_bind_null(statement, index)) }
        // A zero-length blob still binds as a blob, not NULL.
        next(sqlite3_bind_blob(statement, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), nil))
    }

    mutating func run() throws {
        defer {
            sqlite3_reset(statement)
            index = first
            status = SQLITE_OK
        }
        guard status == SQLITE_OK else { throw connection.failure(status) }
        var stepped = sqlite3_step(statement)
        while stepped == SQLITE_ROW { stepped = sqlite3_step(statement) }
        guard stepped == SQLITE_DONE else { throw connection.failure(stepped) }
    }
}

