import Foundation

/// Seals every sensitive column of a store anew under another sealer, recomputing identity
/// keys and digests, inside the caller's transaction. Sources are done last: the other tables'
/// identity keys are computed from their plain source identifiers.
struct Resealer {
    let old: any RecordSealer
    let new: any RecordSealer

    func resealAll(_ w: StoreWriter) async throws {
        var sources: [Int64: String] = [:]
        for row in try await rows(w, "SELECT id, identifier FROM source") { sources[try row.int(0)] = try text(try row.data(1)) }
        for row in try await rows(w, "SELECT id, source_id, resource_type, resource_id, display_name, source_url, data FROM resource") {
            let data = try old.open(try row.data(6))
            let sealedID = try row.data(3)
            var q = w.sql("UPDATE resource SET identity = ")
            q += q.bind(new.identityKey([sources[try row.int(1)] ?? "", try row.string(2), try text(sealedID)]))
            q += ", resource_id = " + q.bind(try reseal(sealedID)) + ", display_name = " + q.bind(try reseal(try row.data(4)))
            q += ", source_url = " + q.bind(try row.optionalData(5).map(reseal)) + ", digest = " + q.bind(new.contentDigest(data))
            q += ", data = " + q.bind(try new.seal(data))
            try await update(w, q, key: "id", .int(try row.int(0)))
        }
        for row in try await rows(w, "SELECT id, data FROM resource_version") {
            let data = try old.open(try row.data(1))
            var q = w.sql("UPDATE resource_version SET digest = ")
            q += q.bind(new.contentDigest(data)) + ", data = " + q.bind(try new.seal(data))
            try await update(w, q, key: "id", .int(try row.int(0)))
        }
        for row in try await rows(w, "SELECT anchor, source_id, resource_type, resource_id FROM tombstone") {
            let sealedID = try row.data(3)
            var q = w.sql("UPDATE tombstone SET identity = ")
            q += q.bind(new.identityKey([sources[try row.int(1)] ?? "", try row.string(2), try text(sealedID)]))
            q += ", resource_id = " + q.bind(try reseal(sealedID))
            try await update(w, q, key: "anchor", .int(try row.int(0)))
        }
        for row in try await rows(w, "SELECT anchor, sample_uuid FROM quantity_sample_tombstone") {
            guard let uuid = UUID(uuidString: try text(try row.data(1))) else { throw HealthStoreError.corruptRecord("sample tombstone with a damaged UUID") }
            var q = w.sql("UPDATE quantity_sample_tombstone SET identity = ")
            q += q.bind(SampleCoding.identity(uuid, new)) + ", sample_uuid = " + q.bind(try reseal(try row.data(1)))
            try await update(w, q, key: "anchor", .int(try row.int(0)))
        }
        var samples = w.sql()
        SampleSQL.selectSamples(into: &samples)
        samples += " WHERE " + samples.scope("q")
        for row in try await w.session.rows(samples) {
            let stored = try RowCoding.sample(row, old)
            var q = w.sql("UPDATE quantity_sample SET identity = ")
            q += q.bind(SampleCoding.identity(stored.sample.uuid, new)) + ", digest = " + q.bind(SampleCoding.digest(stored.sample, new))
            q += ", sample_uuid = " + q.bind(try reseal(try row.data(4))) + ", value = " + q.bind(try reseal(try row.data(5)))
            q += ", unit = " + q.bind(try reseal(try row.data(6))) + ", device = " + q.bind(try row.optionalData(9).map(reseal))
            q += ", metadata = " + q.bind(try reseal(try row.data(10))) + ", signature_status = " + q.bind(try reseal(try row.data(11)))
            try await update(w, q, key: "id", .int(try row.int(0)))
        }
        for row in try await rows(w, "SELECT id, status_detail, details, jws FROM verifiable_record") {
            let jws = try row.data(3)
            var q = w.sql("UPDATE verifiable_record SET identity = ")
            q += q.bind(new.identityKey(["smart-health-card", try text(jws)])) + ", status_detail = " + q.bind(try reseal(try row.data(1)))
            q += ", details = " + q.bind(try reseal(try row.data(2))) + ", jws = " + q.bind(try reseal(jws))
            try await update(w, q, key: "id", .int(try row.int(0)))
        }
        for row in try await rows(w, "SELECT entry_key, details FROM medication_note") {
            let details = try old.open(try row.data(1))
            let (entryID, _) = try MedicationNoteCoding.read(details)
            var q = w.sql("UPDATE medication_note SET entry_key = ")
            q += q.bind(MedicationNoteCoding.key(entryID, new)) + ", details = " + q.bind(try new.seal(details))
            try await update(w, q, key: "entry_key", .blob(try row.data(0)))
        }
        for row in try await rows(w, "SELECT credential_id, name FROM passkey") {
            var q = w.sql("UPDATE passkey SET name = ")
            q += q.bind(try reseal(try row.data(1)))
            try await update(w, q, key: "credential_id", .blob(try row.data(0)))
        }
        for row in try await rows(w, "SELECT at, actor_id, action FROM proxy_action") {
            var q = w.sql("UPDATE proxy_action SET action = ")
            q += q.bind(try reseal(try row.data(2))) + " WHERE " + q.scope() + " AND at = " + q.bind(try row.double(0)) + " AND actor_id = " + q.bind(try row.string(1))
            try await w.session.run(q)
        }
        for row in try await rows(w, "SELECT app_id, entries FROM medication_choice") {
            var q = w.sql("UPDATE medication_choice SET entries = ")
            q += q.bind(try reseal(try row.data(1)))
            try await update(w, q, key: "app_id", .text(try row.string(0)))
        }
        for row in try await rows(w, "SELECT id, details FROM app") {
            var q = w.sql("UPDATE app SET details = ")
            q += q.bind(try reseal(try row.data(1)))
            try await update(w, q, key: "id", .text(try row.string(0)))
        }
        for row in try await rows(w, "SELECT id, details, checkpoint FROM provider_connection") {
            var q = w.sql("UPDATE provider_connection SET details = ")
            q += q.bind(try reseal(try row.data(1))) + ", checkpoint = " + q.bind(try row.optionalData(2).map(reseal))
            try await update(w, q, key: "id", .text(try row.string(0)))
        }
        for row in try await rows(w, "SELECT handle, details, secret, passcode_hash, made_by FROM hosted_link") {
            var q = w.sql("UPDATE hosted_link SET details = ")
            q += q.bind(try reseal(try row.data(1))) + ", secret = " + q.bind(try row.optionalData(2).map(reseal))
            q += ", passcode_hash = " + q.bind(try row.optionalData(3).map(reseal)) + ", made_by = " + q.bind(try row.optionalData(4).map(reseal))
            try await update(w, q, key: "handle", .text(try row.string(0)))
        }
        for row in try await rows(w, "SELECT token_digest, recipient FROM hosted_link_location") {
            var q = w.sql("UPDATE hosted_link_location SET recipient = ")
            q += q.bind(try reseal(try row.data(1)))
            try await update(w, q, key: "token_digest", .blob(try row.data(0)))
        }
        for row in try await rows(w, "SELECT id, recipient FROM hosted_link_access") {
            var q = w.sql("UPDATE hosted_link_access SET recipient = ")
            q += q.bind(try row.optionalData(1).map(reseal))
            try await update(w, q, key: "id", .int(try row.int(0)))
        }
        var shares = w.sql("DELETE FROM card_share WHERE ")
        shares += shares.scope()
        try await w.session.run(shares)
        for row in try await rows(w, "SELECT id, identifier, name FROM source") {
            let identifier = try row.data(1)
            var q = w.sql("UPDATE source SET identity = ")
            q += q.bind(ConsentCoding.sourceIdentity(try text(identifier), new)) + ", identifier = " + q.bind(try reseal(identifier))
            q += ", name = " + q.bind(try reseal(try row.data(2)))
            try await update(w, q, key: "id", .int(try row.int(0)))
        }
    }

    /// Every row of the store's part of a table.
    private func rows(_ w: StoreWriter, _ select: String) async throws -> [SQLRow] {
        var q = w.sql(select + " WHERE ")
        q += q.scope()
        return try await w.session.rows(q)
    }

    /// Finishes an UPDATE with the row it changes.
    private func update(_ w: StoreWriter, _ statement: SQLStatement, key: String, _ value: SQLValue) async throws {
        var q = statement
        q += " WHERE " + q.scope() + " AND \(key) = " + q.bind(value)
        try await w.session.run(q)
    }

    private func reseal(_ sealed: Data) throws -> Data { try new.seal(try old.open(sealed)) }

    private func text(_ sealed: Data) throws -> String { String(decoding: try old.open(sealed), as: UTF8.self) }
}
