import Foundation
import Synchronization

/// What one store object remembers of rows that never change once written: apps decoded from
/// their rows (opening and checking a registration on every authenticated request was a visible
/// share of it), the anchor secret, hosted links' details, and the files of hosted links that are
/// not long-term (ciphertext that never changes until the link ends; the link's state is still
/// read on every request, so a revoke by any process acts at once).
///
/// Held per store object, never per process: a store opened locked is another object with
/// nothing remembered, so nothing decrypted outlives locking the store.
final class RememberedRows: Sendable {
    private let apps = Mutex<[AppRowKey: StoredApp]>([:])
    private let secret = Mutex<Data?>(nil)
    private let linkDetails = Mutex<[String: (sealed: Data, label: String?, content: HostedLinkContent)]>([:])
    private let linkFiles = Mutex<(files: [String: HostedLinkFile], bytes: Int)>(([:], 0))

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

    /// Bounds the hosted links' details kept, and the bytes of their files.
    static let linkLimit = 1024
    static let linkFileBytes = 32 << 20

    /// A hosted link's details (label, what it shares) decoded before, if its sealed bytes are the same.
    func linkDetails(_ handle: String, sealed: Data) -> (label: String?, content: HostedLinkContent)? {
        linkDetails.withLock { map in map[handle].flatMap { $0.sealed == sealed ? ($0.label, $0.content) : nil } }
    }

    func keepLinkDetails(_ handle: String, sealed: Data, label: String?, content: HostedLinkContent) {
        linkDetails.withLock { map in
            if map.count >= Self.linkLimit { map.removeAll(keepingCapacity: true) }
            map[handle] = (sealed, label, content)
        }
    }

    /// A file of a link whose files never change (not long-term), read before.
    func linkFile(_ handle: String, _ ordinal: Int) -> HostedLinkFile? { linkFiles.withLock { $0.files["\(handle)/\(ordinal)"] } }

    func keepLinkFile(_ handle: String, _ file: HostedLinkFile) {
        guard file.jwe.count <= Self.linkFileBytes / 8 else { return }
        linkFiles.withLock { cache in
            if cache.bytes + file.jwe.count > Self.linkFileBytes {
                cache = ([:], 0)
            }
            cache.files["\(handle)/\(file.info.ordinal)"] = file
            cache.bytes += file.jwe.count
        }
    }

    /// Forgets a link's files (it ended).
    func forgetLinkFiles(_ handle: String) {
        linkFiles.withLock { cache in
            for key in cache.files.keys where key.hasPrefix(handle + "/") { cache.bytes -= cache.files.removeValue(forKey: key)?.jwe.count ?? 0 }
        }
    }

    /// The anchor secret, once read.
    var anchorSecret: Data? {
        get { secret.withLock { $0 } }
        set { secret.withLock { $0 = newValue } }
    }
}
