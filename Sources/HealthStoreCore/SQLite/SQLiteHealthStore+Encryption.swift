import Foundation
import GRDB

extension SQLiteHealthStore: KeyedStore {
    public var location: String { path }

    public func keyEnvelope() async throws -> KeyEnvelope? {
        // Readable while locked: unlocking needs it.
        do { return try await pool.read { try SQLiteKeyStorage.load($0) } } catch { throw SQLiteHealthStore.map(error, path: path) }
    }

    public func replaceKeyEnvelope(_ envelope: KeyEnvelope) async throws {
        let path = self.path
        do {
            try await pool.write { db in
                guard let current = try SQLiteKeyStorage.load(db) else { throw HealthStoreError.notEncrypted(path: path) }
                guard current.keyID == envelope.keyID else { throw HealthStoreError.invalidArgument("the new wrapping is of another data key") }
                try SQLiteKeyStorage.save(envelope, db)
            }
        } catch {
            throw SQLiteHealthStore.map(error, path: path)
        }
        await truncateWAL()
    }

    /// Encrypts a plain store in place: a new data key is made and wrapped for the
    /// credentials, every sealed column is sealed anew with AES-GCM, identity keys and digests
    /// become HMACs, all in one transaction; then the file is vacuumed and the WAL emptied so no
    /// plaintext is left in free pages. Pending one-time card shares are dropped (card
    /// identifiers change with their identity keys).
    ///
    /// - Throws: ``HealthStoreError/alreadyEncrypted(path:)``, ``HealthStoreError/storeBusy(path:)``.
    public static func encrypt(path: String, credentials: StoreCredentials, kdf: KDFParameters = .standard, clock: HealthClock = .system) throws(HealthStoreError) {
        let pool = try openPool(path: path, busyTimeout: 10)
        guard try envelope(pool, path: path) == nil else { throw .alreadyEncrypted(path: path) }
        let (envelope, dataKey) = try KeyEnvelope.create(for: credentials, kdf: kdf, date: clock.now)
        let resealer = SQLiteResealer(old: PlainSealer(), new: AESGCMSealer(dataKey: dataKey))
        try guarded(path) {
            try pool.write { db in
                try resealer.resealAll(db)
                try SQLiteKeyStorage.save(envelope, db)
            }
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM")
                try db.checkpoint(.truncate)
            }
        }
    }
}
