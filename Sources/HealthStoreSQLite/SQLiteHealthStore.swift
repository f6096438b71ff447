import Foundation
import HealthStoreCore

/// The embedded store: one SQLite file in WAL mode. The same type as ``PostgresHealthStore``
/// (``DatabaseHealthStore``), opened on a file.
public typealias SQLiteHealthStore = DatabaseHealthStore

extension DatabaseHealthStore {
    /// Opens (creating when missing) the store at `path` with a given sealer.
    ///
    /// An encrypted store opened this way (without its key) is locked: every operation fails
    /// with ``HealthStoreError/storeLocked(path:)``. Use ``init(path:clock:credentials:kdf:busyTimeout:)``
    /// to unlock one.
    ///
    /// - Parameters:
    ///   - busyTimeout: how long a write waits for another process's write before failing with
    ///     ``HealthStoreError/storeBusy(path:)``.
    public convenience init(path: String, clock: HealthClock = .system, sealer: any RecordSealer = PlainSealer(), busyTimeout: TimeInterval = 10)
        async throws(HealthStoreError)
    {
        try await self.init(opening: SQLiteDatabase(path: path, busyTimeout: busyTimeout), clock: clock, sealer: sealer)
    }

    /// Opens (creating when missing) the store at `path`, encrypted when credentials are given.
    ///
    /// - An encrypted store is unlocked with the credentials; without them it is locked.
    /// - A new (empty) store opened with credentials is encrypted from its first row: a new
    ///   data key is made and wrapped for them (scrypt with `kdf` for a passphrase).
    /// - A plain store that holds data, opened with credentials, fails with
    ///   ``HealthStoreError/notEncrypted(path:)``: convert it with ``encrypt(path:credentials:kdf:clock:)``.
    ///
    /// - Throws: ``HealthStoreError/wrongPassphrase(path:)`` when the credentials do not unwrap the key.
    public convenience init(
        path: String, clock: HealthClock = .system, credentials: StoreCredentials?, kdf: KDFParameters = .standard, busyTimeout: TimeInterval = 10
    ) async throws(HealthStoreError) {
        try await self.init(opening: SQLiteDatabase(path: path, busyTimeout: busyTimeout), clock: clock, credentials: credentials, kdf: kdf)
    }

    /// Encrypts a plain store file in place (see ``DatabaseHealthStore``'s encryption), then
    /// vacuums it and empties the WAL so no plaintext is left in free pages.
    ///
    /// - Throws: ``HealthStoreError/alreadyEncrypted(path:)``, ``HealthStoreError/storeBusy(path:)``.
    public static func encrypt(path: String, credentials: StoreCredentials, kdf: KDFParameters = .standard, clock: HealthClock = .system)
        async throws(HealthStoreError)
    {
        try await encrypt(SQLiteDatabase(path: path, busyTimeout: 10), credentials: credentials, kdf: kdf, clock: clock)
    }
}
