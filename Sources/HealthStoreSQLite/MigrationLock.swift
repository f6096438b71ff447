import Foundation
import HealthStoreCore
#if canImport(Glibc)
import Glibc
#endif

/// An advisory file lock beside the store (`<store>.migrate.lock`), held while the schema is
/// brought up to date, so that processes opening a new store at the same moment take turns.
enum MigrationLock {
    static func withLock<T>(storePath: String, timeout: TimeInterval, _ body: () throws -> T) throws -> T {
        let lockPath = storePath + ".migrate.lock"
        let fd = open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw HealthStoreError.cannotOpen(path: storePath, reason: "cannot create \(lockPath)") }
        defer { close(fd) }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else { throw HealthStoreError.storeBusy(path: storePath) }
            usleep(10_000)
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
