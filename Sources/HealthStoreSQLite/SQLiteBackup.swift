import CSQLite
import Dispatch
import Foundation
import HealthStoreCore

#if canImport(Glibc)
import Glibc
#endif

/// Why a backup or a restore was refused or failed. A refused restore leaves the store as it was.
public enum BackupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// There is no store file to back up.
    case noStore(path: String)
    /// The backup's destination exists already.
    case outputExists(path: String)
    /// A store exists where the backup would be restored, and `--force` was not given.
    case storeExists(path: String)
    /// The file is not an SQLite database.
    case notADatabase(path: String)
    /// `PRAGMA integrity_check` found damage (its first messages).
    case integrityFailed(path: String, messages: [String])
    /// The file is a database but not a store this program can open (the reason).
    case notAStore(path: String, reason: String)
    /// The backup is encrypted and no key was given to check it with.
    case locked(path: String)
    /// The key given does not unlock the backup.
    case wrongKey(path: String)
    /// A file could not be read, written, synced or renamed.
    case io(path: String, reason: String)
    /// SQLite reported an error.
    case database(String)

    public var description: String {
        switch self {
        case .noStore(let p): return "no store at \(p)"
        case .outputExists(let p): return "\(p) exists already; choose another name or remove it"
        case .storeExists(let p): return "a store exists at \(p); give --force to replace it"
        case .notADatabase(let p): return "\(p) is not an SQLite database"
        case .integrityFailed(let p, let m): return "\(p) fails its integrity check: \(m.joined(separator: "; "))"
        case .notAStore(let p, let r): return "\(p) is not a store this program can open: \(r)"
        case .locked(let p): return "\(p) is encrypted: give its key (--key-file, HEALTHRECORDS_PASSPHRASE or an unlock session) to check it before restoring"
        case .wrongKey(let p): return "wrong passphrase or key file for the backup \(p); nothing was restored"
        case .io(let p, let r): return "\(p): \(r)"
        case .database(let m): return "database error: \(m)"
        }
    }
}

/// Backups of a SQLite store file, and restores from them.
///
/// A backup is `VACUUM INTO` a new file: one read transaction, so under WAL it is a consistent
/// snapshot of every transaction committed before it started while writers go on; it copies
/// only live pages, so rows deleted (and zeroed by `secure_delete`) stay gone. It is the same
/// file format as the store — sealed columns stay sealed and the wrapped data key travels in
/// `store_key` — so an encrypted store's backup is encrypted under the same passphrase or key
/// file. The backup is written beside its destination, synced and renamed into place.
///
/// A restore copies the backup beside the store, checks a second copy (`integrity_check`, then
/// opening it as a store with the credentials given, which fails on a wrong key, and reading
/// its sources), syncs the first copy and renames it over the store, having removed the old
/// store's WAL so no old page is replayed onto the new file.
public enum SQLiteBackup {
    /// What a restore found in the backup.
    public struct RestoreSummary: Sendable {
        /// Whether the backup is encrypted.
        public let encrypted: Bool
        /// How many sources it holds.
        public let sources: Int
        /// Its latest anchor.
        public let anchor: QueryAnchor
    }

    /// Writes a consistent snapshot of the store at `storePath` to `path` (which must not exist).
    public static func backup(storePath: String, to path: String, busyTimeout: TimeInterval = 10) async throws(BackupError) {
        guard FileManager.default.fileExists(atPath: storePath) else { throw .noStore(path: storePath) }
        guard !FileManager.default.fileExists(atPath: path) else { throw .outputExists(path: path) }
        let temporary = sibling(of: path, tag: "partial")
        // VACUUM INTO takes an empty file; making it first makes it owner-only.
        guard OwnerOnlyFiles.writeNew(Data(), to: temporary) else { throw .io(path: temporary, reason: String(cString: strerror(errno))) }
        do {
            try await offPool {
                let connection = try RawConnection(path: storePath, busyTimeout: busyTimeout, create: false)
                try connection.run("VACUUM INTO ?1", bind: temporary)
            }
            try sync(temporary)
            try replace(path, with: temporary)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Replaces the store at `storePath` with a backup, after checking the backup.
    ///
    /// - Parameters:
    ///   - credentials: the backup's passphrase or key file; needed when it is encrypted. For a
    ///     plain backup they are not needed and not used.
    ///   - force: replace an existing store; without it an existing store is refused.
    public static func restore(from backup: String, to storePath: String, credentials: StoreCredentials?, force: Bool) async throws(BackupError)
        -> RestoreSummary
    {
        guard let header = FileManager.default.contents(atPath: backup)?.prefix(16) else { throw .io(path: backup, reason: "cannot be read") }
        guard header == Data("SQLite format 3\0".utf8) else { throw .notADatabase(path: backup) }
        let exists = ((try? FileManager.default.attributesOfItem(atPath: storePath))?[.size] as? NSNumber).map { $0.intValue > 0 } ?? false
        if exists, !force { throw .storeExists(path: storePath) }
        let directory = (storePath as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do { try OwnerOnlyFiles.makeDirectory(directory) } catch { throw .io(path: directory, reason: error.description) }
        }
        let staged = sibling(of: storePath, tag: "restore")
        let check = sibling(of: storePath, tag: "restore-check")
        defer {
            for p in [staged, check, check + "-wal", check + "-shm"] { unlink(p) }
        }
        try copy(backup, to: staged)
        try copy(backup, to: check)
        let summary = try await checkStore(check, shownAs: backup, credentials: credentials)
        try sync(staged)
        if exists {
            // Empty the old store's WAL into it, then remove WAL and shared memory: left beside
            // the new file, the old WAL's frames would be replayed onto it.
            try? await offPool {
                let old = try RawConnection(path: storePath, busyTimeout: 2, create: false)
                try old.run("PRAGMA wal_checkpoint(TRUNCATE)")
            }
        }
        unlink(storePath + "-wal")
        unlink(storePath + "-shm")
        try replace(storePath, with: staged)
        return summary
    }

    /// The messages of `PRAGMA integrity_check` (`["ok"]` for a sound file).
    public static func integrityCheck(path: String) async throws(BackupError) -> [String] {
        try await offPool {
            let connection = try RawConnection(path: path, busyTimeout: 10, create: false)
            return try connection.strings("PRAGMA integrity_check")
        }
    }

    /// Checks a copy: sound, a store, and readable with the credentials.
    private static func checkStore(_ path: String, shownAs name: String, credentials: StoreCredentials?) async throws(BackupError) -> RestoreSummary {
        let messages = try await integrityCheck(path: path)
        guard messages == ["ok"] else { throw .integrityFailed(path: name, messages: Array(messages.prefix(5))) }
        do {
            let store: DatabaseHealthStore
            do {
                store = try await SQLiteHealthStore(path: path, credentials: credentials)
            } catch .notEncrypted {
                // A plain backup needs no key; the credentials were for something else.
                store = try await SQLiteHealthStore(path: path, credentials: nil)
            }
            if store.isLocked { throw BackupError.locked(path: name) }
            let sources = try await store.sources()
            let anchor = try await store.currentAnchor()
            let plain = try await isPlain(path)
            return RestoreSummary(encrypted: !plain, sources: sources.count, anchor: anchor)
        } catch let e as BackupError {
            throw e
        } catch let e as HealthStoreError {
            switch e {
            case .wrongPassphrase: throw .wrongKey(path: name)
            case .storeLocked: throw .locked(path: name)
            default: throw .notAStore(path: name, reason: e.description)
            }
        } catch {
            throw .notAStore(path: name, reason: "\(error)")
        }
    }

    /// Whether a store file has no key row.
    private static func isPlain(_ path: String) async throws -> Bool {
        try await offPool {
            let c = try RawConnection(path: path, busyTimeout: 10, create: false)
            return try c.strings("SELECT count(*) FROM store_key") == ["0"]
        }
    }

    /// `dir/.name.tag-XXXXXXXX`: beside the file, on the same file system, so a rename is atomic.
    static func sibling(of path: String, tag: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        let name = ".\((path as NSString).lastPathComponent).\(tag)-\(UUID().uuidString.prefix(8))"
        return directory.isEmpty ? name : (directory as NSString).appendingPathComponent(name)
    }

    /// Copies a file into a new owner-only file and syncs it.
    private static func copy(_ source: String, to path: String) throws(BackupError) {
        guard let input = FileHandle(forReadingAtPath: source) else { throw .io(path: source, reason: "cannot be read") }
        defer { try? input.close() }
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
        let output = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do {
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try output.write(contentsOf: chunk) }
            try output.synchronize()
            try output.close()
        } catch { throw .io(path: path, reason: "\(error)") }
    }

    /// Flushes a file to disk.
    private static func sync(_ path: String) throws(BackupError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
    }

    /// Renames `temporary` over `path` and syncs the folder, so the rename itself is durable.
    private static func replace(_ path: String, with temporary: String) throws(BackupError) {
        guard rename(temporary, path) == 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
    }

    /// Runs blocking SQLite work on a dispatch thread, off Swift's cooperative pool.
    private static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws(BackupError) -> T {
        let result: Result<T, BackupError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                do { continuation.resume(returning: .success(try work())) } catch let e as BackupError {
                    continuation.resume(returning: .failure(e))
                } catch {
                    continuation.resume(returning: .failure(.database("\(error)")))
                }
            }
        }
        return try result.get()
    }
}

/// A plain SQLite connection for backup work: no schema, no pragmas beyond the busy timeout.
private final class RawConnection {
    private let handle: OpaquePointer
    private let path: String

    init(path: String, busyTimeout: TimeInterval, create: Bool) throws(BackupError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw .io(path: path, reason: message)
        }
        handle = db
        self.path = path
        sqlite3_busy_timeout(db, Int32(max(0, min(busyTimeout * 1000, Double(Int32.max)))))
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs one statement, binding one text value when given.
    func run(_ sql: String, bind text: String? = nil) throws(BackupError) {
        _ = try strings(sql, bind: text)
    }

    /// Runs one statement and returns its rows' first columns as text.
    func strings(_ sql: String, bind text: String? = nil) throws(BackupError) -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw failure() }
        defer { sqlite3_finalize(statement) }
        if let text {
            let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            guard sqlite3_bind_text(statement, 1, text, -1, transient) == SQLITE_OK else { throw failure() }
        }
        var out: [String] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else {
                if status & 0xFF == SQLITE_NOTADB { throw BackupError.notADatabase(path: path) }
                throw failure()
            }
            out.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
        return out
    }

    private func failure() -> BackupError {
        let code = sqlite3_errcode(handle)
        if code & 0xFF == SQLITE_NOTADB { return .notADatabase(path: path) }
        return .database(String(cString: sqlite3_errmsg(handle)))
    }
}
