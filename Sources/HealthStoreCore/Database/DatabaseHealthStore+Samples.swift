import ClinicalRecords
import Foundation

extension DatabaseHealthStore {
    public func saveSamples(_ samples: [QuantitySample]) async throws -> SampleSaveOutcome {
        let now = clock.now.timeIntervalSince1970
        let result = try await write { w -> (SampleSaveOutcome, Int64) in
            var batch = SampleBatch(writer: w, now: now)
            // 16 values a row: chunks stay far below both engines' limits on bound values.
            for start in stride(from: 0, to: samples.count, by: 1000) {
                try await batch.save(samples[start..<min(start + 1000, samples.count)])
            }
            return (batch.outcome, w.anchor)
        }
        publish(StoreChange(types: [], sampleTypes: Set(result.0.saved.map { $0.sample.type }), anchor: QueryAnchor(rawValue: result.1)))
        return result.0
    }

    public func samples(_ query: QuantitySampleQuery) async throws -> [StoredQuantitySample] {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        let q = SampleSQL(dialect: dialect, sealer: sealer).select(query)
        let sealer = self.sealer
        return try await read { session in try await session.rows(q).map { try RowCoding.sample($0, sealer) } }
    }

    public func sampleChanges(_ query: AnchoredSampleQuery) async throws -> AnchoredSampleQueryResult {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        let builder = SampleSQL(dialect: dialect, sealer: sealer)
        let (stored, gone, current) = try await changes(added: builder.added(query), RowCoding.sample, deleted: builder.deleted(query), RowCoding.deletedSample)
        return AnchoredQueryMerge.merge(added: stored, deleted: gone, limit: query.limit, current: current)
    }

    public func deleteSamples(type: QuantityType?, predicate: SamplePredicate?) async throws -> Int {
        let now = clock.now.timeIntervalSince1970
        let builder = SampleSQL(dialect: dialect, sealer: sealer)
        let result = try await write { w -> (Int, Set<QuantityType>, Int64) in
            var tombstones = w.sql("INSERT INTO quantity_sample_tombstone (")
            tombstones += tombstones.personColumn + "anchor, identity, source_id, quantity_type, sample_uuid, deleted_date, added_anchor, dated) SELECT "
            tombstones += (tombstones.personColumn.isEmpty ? "" : "q.person_id, ") + tombstones.bind(w.anchor)
            tombstones += " + row_number() OVER (ORDER BY q.id), q.identity, q.source_id, q.quantity_type, q.sample_uuid, "
            tombstones += tombstones.bind(now) + ", q.anchor, q.start_date FROM quantity_sample q"
            builder.filter(type: type, predicate: predicate, into: &tombstones)
            tombstones += " RETURNING quantity_type"
            let types = try await w.session.rows(tombstones).map { try $0.string(0) }
            guard !types.isEmpty else { return (0, [], w.anchor) }
            _ = w.nextAnchors(types.count)
            var remove = w.sql("DELETE FROM quantity_sample AS q")
            builder.filter(type: type, predicate: predicate, into: &remove)
            try await w.session.run(remove)
            return (types.count, Set(types.compactMap(QuantityType.init(rawValue:))), w.anchor)
        }
        publish(StoreChange(types: [], sampleTypes: result.1, anchor: QueryAnchor(rawValue: result.2)))
        if result.0 > 0 { try? await database.scrub(vacuum: false) }
        return result.0
    }
}

/// Saves samples in chunks inside the caller's transaction: one lookup of stored digests and
/// one insert per chunk; a conflict throws (rolling everything back).
struct SampleBatch {
    let writer: StoreWriter
    let now: Double
    var outcome = SampleSaveOutcome()
    private var digests: [Data: Data] = [:]
    private var sourceIDs: [String: Int64] = [:]

    init(writer: StoreWriter, now: Double) {
        self.writer = writer
        self.now = now
    }

    mutating func save(_ samples: ArraySlice<QuantitySample>) async throws {
        let w = writer
        let sealer = w.sealer
        var find = w.sql("SELECT identity, digest FROM quantity_sample WHERE ")
        find += find.scope() + " AND identity IN (" + find.list(samples.map { SampleCoding.identity($0.uuid, sealer) }) + ")"
        for row in try await w.session.rows(find) { digests[try row.data(0)] = try row.data(1) }
        var rows: [[SQLValue]] = []
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
            let anchor = w.nextAnchor()
            var row: [SQLValue] = w.dialect.rowIDIsAnchor ? [.int(anchor)] : []
            row += [.blob(identity), .int(sourceID), .text(sample.type.rawValue), .blob(sealed.uuid)]
            row += [.double(SampleCoding.seconds(sample.startDate)), .double(SampleCoding.seconds(sample.endDate)), .double(now), .int(anchor)]
            row += [.blob(digest), .blob(sealed.value), .blob(sealed.unit), .blob(sealed.device), .blob(sealed.metadata), .blob(sealed.signatureStatus)]
            rows.append(row)
            digests[identity] = digest
            identities.append(identity)
            outcome.saved.append(
                StoredQuantitySample(sample: sample, addedDate: Date(timeIntervalSince1970: now), anchor: QueryAnchor(rawValue: anchor), signatureStatus: status))
        }
        guard !rows.isEmpty else { return }
        try await w.insert("""
            INSERT INTO quantity_sample (\(w.dialect.rowIDIsAnchor ? "id, " : "")identity, source_id, quantity_type, sample_uuid, start_date, end_date,
            added_date, anchor, digest, value, unit, device, metadata, signature_status) VALUES 
            """, rows)
        // A sample saved again after its deletion is simply added again.
        var tombstones = w.sql("DELETE FROM quantity_sample_tombstone WHERE ")
        tombstones += tombstones.scope() + " AND identity IN (" + tombstones.list(identities) + ")"
        try await w.session.run(tombstones)
    }
}
