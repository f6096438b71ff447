import Foundation

extension DatabaseHealthStore {
    public func keyEnvelope() async throws -> KeyEnvelope? {
        // Readable while locked: unlocking needs it.
        let dialect = self.dialect
        return try await guarded { try await database.read { session in try await StoreKeyRow.load(session, dialect) } }
    }

    public func replaceKeyEnvelope(_ envelope: KeyEnvelope) async throws {
        let location = self.location
        let plain = DatabaseHealthStore(database: database, clock: clock, sealer: PlainSealer())
        try await plain.write { w in
            guard let current = try await StoreKeyRow.load(w.session, w.dialect) else { throw HealthStoreError.notEncrypted(path: location) }
            guard current.keyID == envelope.keyID else { throw HealthStoreError.invalidArgument("the new wrapping is of another data key") }
            try await StoreKeyRow.save(envelope, w)
        }
        try? await database.scrub(vacuum: false)
    }

    /// Encrypts a plain store in place: a new data key is made and wrapped for the credentials,
    /// every sealed column is sealed anew with AES-GCM and identity keys and digests become
    /// HMACs, in one transaction; then the engine drops old copies where it can. Pending
    /// one-time card shares are dropped (card identifiers change with their identity keys).
    package static func encrypt(_ database: any StoreDatabase, credentials: StoreCredentials, kdf: KDFParameters, clock: HealthClock) async throws(HealthStoreError) {
        let location = database.location
        let store = DatabaseHealthStore(database: database, clock: clock, sealer: PlainSealer())
        let (envelope, dataKey) = try KeyEnvelope.create(for: credentials, kdf: kdf, date: clock.now)
        let resealer = Resealer(old: PlainSealer(), new: AESGCMSealer(dataKey: dataKey))
        do {
            try await store.write { w in
                guard try await StoreKeyRow.load(w.session, w.dialect) == nil else { throw HealthStoreError.alreadyEncrypted(path: location) }
                try await resealer.resealAll(w)
                try await StoreKeyRow.save(envelope, w)
            }
        } catch {
            throw error as? HealthStoreError ?? .database("\(error)")
        }
        do { try await database.scrub(vacuum: true) } catch { throw database.mapError(error) as? HealthStoreError ?? .database("\(error)") }
    }
}
