import ClinicalRecords
import Foundation
import HealthStoreCore

extension PostgresHealthStore {
    public func saveSamples(_ samples: [QuantitySample]) async throws -> SampleSaveOutcome {
        let now = clock.now.timeIntervalSince1970
        let result = try await write { w -> (SampleSaveOutcome, Int64) in
            var batch = PostgresSampleBatch(writer: w, now: now)
            // 16 values a row: chunks stay far below PostgreSQL's 65,535 parameters.
            for start in stride(from: 0, to: samples.count, by: 1000) {
                try await batch.save(samples[start..<min(start + 1000, samples.count)])
            }
            return (batch.outcome, w.anchor)
        }
        let types = Set(result.0.saved.map { $0.sample.type })
        if !types.isEmpty { broadcaster.publish(StoreChange(types: [], sampleTypes: types, anchor: QueryAnchor(rawValue: result.1))) }
        return result.0
    }

    public func samples(_ query: QuantitySampleQuery) async throws -> [StoredQuantitySample] {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        let q = PostgresSampleQueryBuilder(person: person, sealer: sealer).select(query)
        let sealer = self.sealer
        return try await read { session in try await session.rows(q).map { try Self.sample($0, sealer) } }
    }

    public func sampleChanges(_ query: AnchoredSampleQuery) async throws -> AnchoredSampleQueryResult {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        let builder = PostgresSampleQueryBuilder(person: person, sealer: sealer)
        let added = builder.added(query)
        let deleted = builder.deleted(query)
        let sealer = self.sealer
        let person = self.person
        return try await snapshot { session in
            let current = try await Self.currentAnchor(session, person: person)
            let stored = try await session.rows(added).map { try Self.sample($0, sealer) }
            let gone = try await session.rows(deleted).map { row in
                try SampleCoding.deleted(
                    anchor: try row.int(0), source: try row.opened(1, sealer), type: try row.string(2), sealedUUID: try row.data(3),
                    deletedDate: try row.double(4), sealer: sealer)
            }
            return AnchoredQueryMerge.merge(added: stored, deleted: gone, limit: query.limit, current: QueryAnchor(rawValue: current))
        }
    }

    public func deleteSamples(type: QuantityType?, predicate: SamplePredicate?) async throws -> Int {
        let now = clock.now.timeIntervalSince1970
        let builder = PostgresSampleQueryBuilder(person: person, sealer: sealer)
        let result = try await write { w -> (Int, Set<QuantityType>, Int64) in
            var tombstones = w.query("""
                INSERT INTO quantity_sample_tombstone (person_id, anchor, identity, source_id, quantity_type, sample_uuid, deleted_date, added_anchor)
                SELECT q.person_id, 
                """)
            tombstones += tombstones.bind(w.anchor) + " + row_number() OVER (ORDER BY q.id), q.identity, q.source_id, q.quantity_type, q.sample_uuid, "
            tombstones += tombstones.bind(now) + ", q.anchor FROM quantity_sample q"
            builder.deletion(type: type, predicate: predicate, into: &tombstones)
            tombstones += " RETURNING quantity_type"
            let types = try await w.session.rows(tombstones).map { try $0.string(0) }
            guard !types.isEmpty else { return (0, [], w.anchor) }
            _ = w.nextAnchors(types.count)
            var remove = w.query("DELETE FROM quantity_sample q")
            builder.deletion(type: type, predicate: predicate, into: &remove)
            try await w.session.run(remove)
            return (types.count, Set(types.compactMap(QuantityType.init(rawValue:))), w.anchor)
        }
        if !result.1.isEmpty { broadcaster.publish(StoreChange(types: [], sampleTypes: result.1, anchor: QueryAnchor(rawValue: result.2))) }
        return result.0
    }

    static func sample(_ row: PGRow, _ sealer: any RecordSealer) throws -> StoredQuantitySample {
        try SampleCoding.stored(
            type: try row.string(3),
            sealed: SampleCoding.SealedColumns(
                uuid: try row.data(4), value: try row.data(5), unit: try row.data(6), device: try row.optionalData(9), metadata: try row.data(10),
                signatureStatus: try row.data(11)),
            start: try row.double(7), end: try row.double(8), added: try row.double(12), anchor: try row.int(13),
            source: RecordSource(identifier: try row.opened(1, sealer), name: try row.opened(2, sealer)), sealer: sealer)
    }
}

/// Saves samples in chunks inside the caller's transaction: one lookup of stored digests and
/// one insert per chunk; a conflict throws (rolling everything back).
struct PostgresSampleBatch {
    let writer: PostgresWriter
    let now: Double
    var outcome = SampleSaveOutcome()
    private var digests: [Data: Data] = [:]
    private var sourceIDs: [String: Int64] = [:]

    init(writer: PostgresWriter, now: Double) {
        self.writer = writer
        self.now = now
    }

    mutating func save(_ samples: ArraySlice<QuantitySample>) async throws {
        let w = writer
        let sealer = w.sealer
        var find = w.query("SELECT identity, digest FROM quantity_sample WHERE person_id = $1 AND identity IN (")
        find += find.list(samples.map { SampleCoding.identity($0.uuid, sealer) }) + ")"
        for row in try await w.session.rows(find) { digests[try row.data(0)] = try row.data(1) }
        var insert = w.query("""
            INSERT INTO quantity_sample (person_id, id, identity, source_id, quantity_type, sample_uuid, start_date, end_date, added_date,
            anchor, digest, value, unit, device, metadata, signature_status) VALUES
            """)
        var rows: [String] = []
        var identities: [Data] = []
        for sample in samples {
            let identity = SampleCoding.identity(sample.uuid, sealer)
            let digest = SampleCoding.digest(sample, sealer)
            if let stored = digests[identity] {
                guard stored == digest else { throw HealthStoreError.sampleConflict(sample.uuid) }
                outcome.unchanged.append(sample.uuid)
                continue
            }
            let sourceID: Int64
            if let known = sourceIDs[sample.source.identifier] {
                sourceID = known
            } else {
                sourceID = try await w.sourceID(for: sample.source)
                sourceIDs[sample.source.identifier] = sourceID
            }
            let status = SampleSignatureStatus.check(sample)
            let sealed = try SampleCoding.sealed(sample, status: status, sealer)
            let anchor = insert.bind(w.nextAnchor())
            var values = ["$1", anchor, insert.bind(identity), insert.bind(sourceID), insert.bind(sample.type.rawValue), insert.bind(sealed.uuid)]
            values += [insert.bind(SampleCoding.seconds(sample.startDate)), insert.bind(SampleCoding.seconds(sample.endDate)), insert.bind(now), anchor]
            values += [insert.bind(digest), insert.bind(sealed.value), insert.bind(sealed.unit), insert.bind(sealed.device), insert.bind(sealed.metadata)]
            values.append(insert.bind(sealed.signatureStatus))
            rows.append("(" + values.joined(separator: ", ") + ")")
            digests[identity] = digest
            identities.append(identity)
            outcome.saved.append(
                StoredQuantitySample(sample: sample, addedDate: Date(timeIntervalSince1970: now), anchor: QueryAnchor(rawValue: w.anchor), signatureStatus: status))
        }
        guard !rows.isEmpty else { return }
        insert += rows.joined(separator: ", ")
        try await w.session.run(insert)
        // A sample saved again after its deletion is simply added again.
        var tombstones = w.query("DELETE FROM quantity_sample_tombstone WHERE person_id = $1 AND identity IN (")
        tombstones += tombstones.list(identities) + ")"
        try await w.session.run(tombstones)
    }
}
