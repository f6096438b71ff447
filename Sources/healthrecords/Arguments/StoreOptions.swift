import ArgumentParser
import Foundation
import HealthStore

/// Where the store lives (`--store PATH`, else `HEALTHRECORDS_STORE`, else the per-user data
/// folder) and what unlocks it: `--key-file`, else `HEALTHRECORDS_PASSPHRASE`, else the unlock
/// session `healthrecords unlock` left (see ``UnlockSession``).
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The store file (default: $HEALTHRECORDS_STORE, else ~/.local/share/healthrecords/store.sqlite).")
    var store: String?

    @Option(name: .long, help: "A key file (at least 32 random bytes) that unlocks the store, or encrypts a new one.")
    var keyFile: String?

    /// The path the options resolve to.
    var path: String {
        if let store { return store }
        let env = ProcessInfo.processInfo.environment
        if let p = env["HEALTHRECORDS_STORE"], !p.isEmpty { return p }
        let base = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
        return (base as NSString).appendingPathComponent("healthrecords/store.sqlite")
    }

    /// The passphrase from `HEALTHRECORDS_PASSPHRASE`, if set.
    static var environmentPassphrase: String? {
        ProcessInfo.processInfo.environment["HEALTHRECORDS_PASSPHRASE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Credentials given explicitly: the key file, else the passphrase in the environment.
    func givenCredentials() throws -> StoreCredentials? {
        if let keyFile {
            do { return try StoreCredentials.keyFile(at: keyFile) } catch { throw CommandFailure.usage(error.description) }
        }
        return Self.environmentPassphrase.map(StoreCredentials.passphrase)
    }

    /// Opens the store, unlocked when credentials or an unlock session are at hand. A new
    /// store opened with credentials is encrypted from its first row.
    ///
    /// - Throws: exit 1 for a locked store (`store locked`) or a wrong passphrase; exit 2 when
    ///   the store cannot be opened.
    func open() throws -> any HealthStore {
        let store = try openSQLite(allowLocked: false)
        return store
    }

    /// Opens the SQLite store; `allowLocked` lets key commands open a locked store.
    func openSQLite(allowLocked: Bool) throws -> SQLiteHealthStore {
        var credentials = try givenCredentials()
        let session = UnlockSession(storePath: path)
        var fromSession = false
        if credentials == nil, let key = session.dataKey() {
            credentials = key.credentials
            fromSession = true
        }
        let store: SQLiteHealthStore
        do {
            store = try SQLiteHealthStore(path: path, credentials: credentials)
        } catch {
            // A stale session (the store was replaced or is plain now) is dropped, not used.
            guard fromSession else { throw Self.failure(error) }
            session.remove()
            store = try Self.plainOpen(path)
        }
        if store.isLocked, !allowLocked { throw CommandFailure.failed(HealthStoreError.storeLocked(path: path).description) }
        return store
    }

    private static func plainOpen(_ path: String) throws -> SQLiteHealthStore {
        do { return try SQLiteHealthStore(path: path) } catch { throw failure(error) }
    }

    /// Key problems fail the command (exit 1); a store that cannot be opened is exit 2.
    static func failure(_ error: HealthStoreError) -> CommandFailure {
        switch error {
        case .wrongPassphrase, .storeLocked, .notEncrypted, .alreadyEncrypted: return .failed(error.description)
        default: return .usage(error.description)
        }
    }
}
