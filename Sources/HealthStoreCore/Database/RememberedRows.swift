import Foundation
import Synchronization

/// What one store object remembers of rows that never change once written: apps decoded from
/// their rows (opening and checking a registration on every authenticated request was a visible
/// share of it) and the anchor secret.
///
/// Held per store object, never per process: a store opened locked is another object with
/// nothing remembered, so nothing decrypted outlives locking the store.
final class RememberedRows: Sendable {
    private let apps = Mutex<[AppRowKey: StoredApp]>([:])
    private let secret = Mutex<Data?>(nil)

    /// Bounds the apps kept; emptied when full.
    static let appLimit = 1024

    /// The app decoded from a row with this key before (its access revision is read each time).
    func app(_ key: AppRowKey) -> StoredApp? { apps.withLock { $0[key] } }

    /// Keeps an app decoded from a row.
    func keep(_ app: StoredApp, for key: AppRowKey) {
        apps.withLock { map in
            if map.count >= Self.appLimit { map.removeAll(keepingCapacity: true) }
            map[key] = app
        }
    }

    /// The anchor secret, once read.
    var anchorSecret: Data? {
        get { secret.withLock { $0 } }
        set { secret.withLock { $0 = newValue } }
    }
}
