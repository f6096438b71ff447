import Foundation
import HealthStoreCore

extension PostgresHealthStore {
    public func keyEnvelope() async throws -> KeyEnvelope? {
        // Readable while locked: unlocking needs it.
        let person = self.person
        return try await guarded { try await database.client.withConnection { connection in
            try await PostgresKeyStorage.load(person: person, PGSession(connection: connection, logger: database.logger))
        } }
    }

    public func replaceKeyEnvelope(_ envelope: KeyEnvelope) async throws {
        let location = self.location
        let person = self.person
        let plain = PostgresHealthStore(database: database, person: person, location: location, clock: clock, sealer: PlainSealer(), lockTimeout: lockTimeout)
        try await plain.write { w in
            guard let current = try await PostgresKeyStorage.load(person: person, w.session) else { throw HealthStoreError.notEncrypted(path: location) }
            guard current.keyID == envelope.keyID else { throw HealthStoreError.invalidArgument("the new wrapping is of another data key") }
            try await PostgresKeyStorage.save(envelope, person: person, w.session)
        }
    }
}
