import ByteEncodings
import Crypto
import Foundation
import HealthStoreCore

/// What `healthrecords unlock` leaves behind: the unwrapped data key of one store, in a file
/// only its owner can read, so later commands run without asking again.
///
/// The file lives in `$XDG_RUNTIME_DIR/healthrecords/` (a per-user tmpfs, emptied at logout),
/// else in `<temp>/healthrecords-<uid>/`; the folder must be the user's own, mode 0700, not a
/// symbolic link, or the session is refused. The file is named after a digest of the store's
/// absolute path (one session per store), is written 0600 through a new file and a rename, and
/// names the store and the key id it was made for: a session for another key (the store was
/// replaced) is ignored. `healthrecords lock` overwrites and removes it.
struct UnlockSession {
    /// What names the store: its absolute path with symbolic links resolved, or a PostgreSQL
    /// store's URL (without password) and person.
    let canonicalPath: String

    /// The session of a store file.
    init(storePath: String) {
        canonicalPath = URL(fileURLWithPath: storePath).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// The session of a store named otherwise (a PostgreSQL store's URL and person).
    init(key: String) { canonicalPath = key }

    /// The session folder, made when missing; `nil` when it is unsafe.
    static func folder(create: Bool) -> URL? {
        let env = ProcessInfo.processInfo.environment
        let base: URL
        if let runtime = env["XDG_RUNTIME_DIR"], !runtime.isEmpty, FileManager.default.fileExists(atPath: runtime) {
            base = URL(fileURLWithPath: runtime).appendingPathComponent("healthrecords")
        } else {
            base = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("healthrecords-\(getuid())")
        }
        if create, !FileManager.default.fileExists(atPath: base.path) {
            guard mkdir(base.path, 0o700) == 0 || errno == EEXIST else { return nil }
        }
        var info = stat()
        guard lstat(base.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == getuid(), info.st_mode & 0o077 == 0 else {
            return nil
        }
        return base
    }

    /// The session file, named by a digest of the store's path or key; `nil` when there is no safe session folder.
    var file: URL? {
        let digest = Hex.encode(SHA256.hash(data: Data(canonicalPath.utf8)))
        return Self.folder(create: false)?.appendingPathComponent(String(digest.prefix(32)) + ".session")
    }

    /// The data key of a valid session for this store; `nil` when there is none.
    func dataKey() -> SymmetricKeyBytes? {
        guard let file, let data = FileManager.default.contents(atPath: file.path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: String],
            object["store"] == canonicalPath, let key = object["dataKey"].flatMap(SymmetricKeyBytes.init(base64:))
        else { return nil }
        var info = stat()
        guard lstat(file.path, &info) == 0, info.st_uid == getuid(), info.st_mode & 0o077 == 0 else { return nil }
        return key
    }

    /// Writes the session atomically: an owner-only temporary file renamed into place.
    func save(keyID: String, key: SymmetricKeyBytes) throws {
        guard let folder = Self.folder(create: true), let file else {
            throw CommandFailure.failed("no private folder for the unlock session (check $XDG_RUNTIME_DIR or the temporary folder)")
        }
        let body = try JSONSerialization.data(
            withJSONObject: ["store": canonicalPath, "keyID": keyID, "dataKey": key.base64, "unlocked": ISO8601DateFormatter().string(from: Date())],
            options: [.sortedKeys])
        let temporary = folder.appendingPathComponent(".\(UUID().uuidString).tmp")
        let fd = Foundation.open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw CommandFailure.failed("cannot write the unlock session in \(folder.path)") }
        let written = body.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == body.count, rename(temporary.path, file.path) == 0 else {
            unlink(temporary.path)
            throw CommandFailure.failed("cannot write the unlock session in \(folder.path)")
        }
    }

    /// Overwrites and removes the session; whether there was one.
    @discardableResult
    func remove() -> Bool {
        guard let file, let handle = FileHandle(forUpdatingAtPath: file.path) else { return false }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: 0)
        try? handle.write(contentsOf: Data(count: Int(size)))
        try? handle.synchronize()
        try? handle.close()
        return unlink(file.path) == 0
    }
}
