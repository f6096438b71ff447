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
    /// The store is encrypted and no key was given (HealthKit's `errorDatabaseInaccessible`):
    /// unlock it with its passphrase or key file.
    case storeLocked(path: String)
    /// The passphrase or key file does not unwrap the store's data key.
    case wrongPassphrase(path: String)
    /// A passphrase or key file was given for a store that holds plain data; convert it first
    /// (`healthrecords encrypt`).
    case notEncrypted(path: String)
    /// The store is encrypted already.
    case alreadyEncrypted(path: String)
    /// A sealed value failed authentication: damaged, or sealed under another key.
    case unreadableSealedValue

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): return "cannot open store at \(path): \(reason)"
        case .unknownSchema(let m): return "the store was written by a newer version (unknown migration \(m))"
        case .storeBusy(let path): return "store busy: another process is writing to \(path); try again"
        case .database(let m): return "store error: \(m)"
        case .invalidArgument(let m): return "invalid argument: \(m)"
        case .corruptRecord(let m): return "damaged record: \(m)"
        case .sampleConflict(let uuid): return "sample \(uuid.uuidString) is stored already with other values (samples cannot be changed; delete it first)"
        case .storeLocked(let path): return "store locked: \(path) is encrypted; unlock it (healthrecords unlock, HEALTHRECORDS_PASSPHRASE or --key-file)"
        case .wrongPassphrase(let path): return "wrong passphrase or key file for \(path)"
        case .notEncrypted(let path): return "\(path) is not encrypted; convert it with healthrecords encrypt"
        case .alreadyEncrypted(let path): return "\(path) is encrypted already"
        case .unreadableSealedValue: return "a sealed value fails authentication (damaged, or sealed under another key)"
        }
    }
}
