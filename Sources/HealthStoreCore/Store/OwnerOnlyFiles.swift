import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Files the product writes are readable by their owner only, whatever the umask: health data,
/// keys and exports must not be readable by other users of the machine.
public enum OwnerOnlyFiles {
    /// Creates `path` as an empty 0600 file when missing, and takes group and other permissions
    /// away from it (and from SQLite's `-wal` and `-shm` beside it) when present. SQLite gives
    /// the files it creates later the database file's mode, so they stay 0600 too.
    public static func prepareDatabase(_ path: String) throws(HealthStoreError) {
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        close(fd)
        for p in [path, path + "-wal", path + "-shm", path + "-journal"] {
            var st = stat()
            if stat(p, &st) == 0, st.st_mode & 0o077 != 0 { _ = chmod(p, st.st_mode & 0o700) }
        }
    }

    /// Makes a folder (and its parents) 0700 where it creates them.
    public static func makeDirectory(_ path: String) throws(HealthStoreError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return }
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) } catch {
            throw .cannotOpen(path: path, reason: "cannot create folder \(path)")
        }
    }

    /// Writes a new file created 0600 from the start (never briefly wider), failing when it exists.
    public static func writeNew(_ data: Data, to path: String) -> Bool {
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var written = 0
        let ok = data.withUnsafeBytes { raw -> Bool in
            while written < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 { if errno == EINTR { continue }; return false }
                written += n
            }
            return true
        }
        if !ok { unlink(path) }
        return ok
    }
}
