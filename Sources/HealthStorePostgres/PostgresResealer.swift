import Foundation
import HealthStoreCore

extension PostgresHealthStore {
    /// Encrypts a person's plain store in place: a new data key is made and wrapped for the
    /// credentials, every sealed column is sealed anew with AES-GCM and identity keys and digests
    /// become HMACs, in one transaction. Pending one-time card shares are dropped (card
    /// identifiers change with their identity keys). Other people's stores are untouched.
    ///
    /// PostgreSQL keeps old row versions until vacuum: run `VACUUM` on the tables afterwards to
    /// drop the plaintext versions from the files.
    ///
    /// - Throws: ``HealthStoreError/alreadyEncrypted(path:)``, ``HealthStoreError/storeBusy(path:)``.
    public static func encrypt(
        database: PostgresHealthDatabase, person: String, credentials: StoreCredentials, kdf: KDFParameters = .standard, clock: HealthClock = .system
    ) async throws(HealthStoreError) {
        let location = try await prepare(database, person: person)
        let store = PostgresHealthStore(database: database, person: person, location: location, clock: clock, sealer: PlainSealer(), lockTimeout: .seconds(10))
        let (envelope, dataKey) = try KeyEnvelope.create(for: credentials, kdf: kdf, date: clock.now)
        let resealer = PostgresResealer(old: PlainSealer(), new: AESGCMSealer(dataKey: dataKey))
        do {
            try await store.write { w in
                guard try await PostgresKeyStorage.load(person: person, w.session) == nil else { throw HealthStoreError.alreadyEncrypted(path: location) }
                try await resealer.resealAll(w)
                try await PostgresKeyStorage.save(envelope, person: person, w.session)
            }
        } catch let e as HealthStoreError {
            throw e
        } catch {
            throw .database("\(error)")
        }
    }
}

/// Seals every sensitive column of one person's store anew under another sealer, recomputing
/// identity keys and digests, inside the caller's transaction. Sources are done last: the other
/// tables' identity keys are computed from their plain source identifiers.
struct PostgresResealer {
    let old: any RecordSealer
    let new: any RecordSealer

    func resealAll(_ w: PostgresWriter) async throws {
        var sources: [Int64: String] = [:]
        for row in try await w.session.rows(w.query("SELECT id, identifier FROM source WHERE person_id = $1")) {
            sources[try row.int(0)] = try text(try row.data(1))
        }
        for row in try await w.session.rows(w.query("SELECT id, source_id, resource_type, resource_id, display_name, source_url, data FROM resource WHERE person_id = $1")) {
            let data = try old.open(try row.data(6))
            let sealedID = try row.data(3)
            var q = w.query("UPDATE resource SET identity = ")
            q += q.bind(new.identityKey([sources[try row.int(1)] ?? "", try row.string(2), try text(sealedID)]))
            q += ", resource_id = " + q.bind(try reseal(sealedID)) + ", display_name = " + q.bind(try reseal(try row.data(4)))
            q += ", source_url = " + q.bind(try row.optionalData(5).map(reseal)) + ", digest = " + q.bind(new.contentDigest(data))
            q += ", data = " + q.bind(try new.seal(data)) + " WHERE person_id = $1 AND id = " + q.bind(try row.int(0))
            try await w.session.run(q)
        }
        for row in try await w.session.rows(w.query("SELECT id, data FROM resource_version WHERE person_id = $1")) {
            let data = try old.open(try row.data(1))
            var q = w.query("UPDATE resource_version SET digest = ")
            q += q.bind(new.contentDigest(data)) + ", data = " + q.bind(try new.seal(data)) + " WHERE person_id = $1 AND id = " + q.bind(try row.int(0))
            try await w.session.run(q)
        }
        for row in try await w.session.rows(w.query("SELECT anchor, source_id, resource_type, resource_id FROM tombstone WHERE person_id = $1")) {
            let sealedID = try row.data(3)
            var q = w.query("UPDATE tombstone SET identity = ")
            q += q.bind(new.identityKey([sources[try row.int(1)] ?? "", try row.string(2), try text(sealedID)]))
            q += ", resource_id = " + q.bind(try reseal(sealedID)) + " WHERE person_id = $1 AND anchor = " + q.bind(try row.int(0))
            try await w.session.run(q)
        }
        for row in try await w.session.rows(w.query("SELECT anchor, sample_uuid FROM quantity_sample_tombstone WHERE person_id = $1")) {
            guard let uuid = UUID(uuidString: try text(try row.data(1))) else { throw HealthStoreError.corruptRecord("sample tombstone with a damaged UUID") }
            var q = w.query("UPDATE quantity_sample_tombstone SET identity = ")
            q += q.bind(SampleCoding.identity(uuid, new)) + ", sample_uuid = " + q.bind(try reseal(try row.data(1)))
            q += " WHERE person_id = $1 AND anchor = " + q.bind(try row.int(0))
            try await w.session.run(q)
        }
        for row in try await w.session.rows(w.query(PostgresSampleQueryBuilder.selectColumns + " WHERE q.person_id = $1")) {
            let stored = try PostgresHealthStore.sample(row, old)
            var q = w.query("UPDATE quantity_sample SET identity = ")
            q += q.bind(SampleCoding.identity(stored.sample.uuid, new)) + ", digest = " + q.bind(SampleCoding.digest(stored.sample, new))
            q += ", sample_uuid = " + q.bind(try reseal(try row.data(4))) + ", value = " + q.bind(try reseal(try row.data(5)))
            q += ", unit = " + q.bind(try reseal(try row.data(6))) + ", device = " + q.bind(try row.optionalData(9).map(reseal))
            q += ", metadata = " + q.bind(try reseal(try row.data(10))) + ", signature_status = " + q.bind(try reseal(try row.data(11)))
            q += " WHERE person_id = $1 AND id = " + q.bind(try row.int(0))
            try await w.session.run(q)
        }
        for row in try await w.session.rows(w.query("SELECT id, status_detail, details, jws FROM verifiable_record WHERE person_id = $1")) {
            let jws = try row.data(3)
            var q = w.query("UPDATE verifiable_record SET identity = ")
            q += q.bind(new.identityKey(["smart-health-card", try text(jws)])) + ", status_detail = " + q.bind(try reseal(try row.data(1)))
            q += ", details = " + q.bind(try reseal(try row.data(2))) + ", jws = " + q.bind(try reseal(jws))
            q += " WHERE person_id = $1 AND id = " + q.bind(try row.int(0))
            try await w.session.run(q)
        }
        for row in try await w.session.rows(w.query("SELECT id, details FROM app WHERE person_id = $1")) {
            var q = w.query("UPDATE app SET details = ")
            q += q.bind(try reseal(try row.data(1))) + " WHERE person_id = $1 AND id = " + q.bind(try row.string(0))
            try await w.session.run(q)
        }
        try await w.session.run(w.query("DELETE FROM card_share WHERE person_id = $1"))
        for row in try await w.session.rows(w.query("SELECT id, identifier, name FROM source WHERE person_id = $1")) {
            let identifier = try row.data(1)
            var q = w.query("UPDATE source SET identity = ")
            q += q.bind(ConsentCoding.sourceIdentity(try text(identifier), new)) + ", identifier = " + q.bind(try reseal(identifier))
            q += ", name = " + q.bind(try reseal(try row.data(2))) + " WHERE person_id = $1 AND id = " + q.bind(try row.int(0))
            try await w.session.run(q)
        }
    }

    private func reseal(_ sealed: Data) throws -> Data { try new.seal(try old.open(sealed)) }

    private func text(_ sealed: Data) throws -> String { String(decoding: try old.open(sealed), as: UTF8.self) }
}
