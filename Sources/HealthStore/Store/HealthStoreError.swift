import Foundation

/// Why a store operation failed.
public enum HealthStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store file could not be opened or created.
    case cannotOpen(path: String, reason: String)
    /// The store was written by a newer version of this program.
    case unknownSchema(migration: String)
    /// Another process holds the store's write lock for longer than the timeout.
    case storeBusy(path: String)
    /// The store's database reported an error.
    case database(String)
    /// A query argument is out of range (a negative limit, an anchor from another store…).
    case invalidArgument(String)
    /// A stored value could not be decoded (damaged data).
    case corruptRecord(String)
    /// A sample with this identity is stored already with other values; samples are immutable.
    case sampleConflict(UUID)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): return "cannot open store at \(path): \(reason)"
        case .unknownSchema(let m): return "the store was written by a newer version (unknown migration \(m))"
        case .storeBusy(let path): return "store busy: another process is writing to \(path); try again"
        case .database(let m): return "store error: \(m)"
        case .invalidArgument(let m): return "invalid argument: \(m)"
        case .corruptRecord(let m): return "damaged record: \(m)"
        case .sampleConflict(let uuid): return "sample \(uuid.uuidString) is stored already with other values (samples cannot be changed; delete it first)"
        }
    }
}
