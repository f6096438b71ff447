import ClinicalRecords
import Foundation
import GRDB

extension SQLiteHealthStore {
    public func saveSamples(_ samples: [QuantitySample]) async throws -> SampleSaveOutcome {
        let now = clock.now.timeIntervalSince1970
        let sealer = self.sealer
        let outcome = try await write { db -> (SampleSaveOutcome, Int64) in
            var writer = try SQLiteRecordWriter(db: db, sealer: sealer)
            var sourceIDs: [String: Int64] = [:]
            var outcome = SampleSaveOutcome()
            for sample in samples {
                let sourceID: Int64
                if let known = sourceIDs[sample.source.identifier] {
                    sourceID = known
                } else {
                    sourceID = try writer.sourceID(for: sample.source)
                    sourceIDs[sample.source.identifier] = sourceID
                }
                if let stored = try writer.insert(sample, sourceID: sourceID, now: now) {
                    outcome.saved.append(stored)
                } else {
                    outcome.unchanged.append(sample.uuid)
                }
            }
            try writer.finish()
            return (outcome, writer.anchor)
        }
        let types = Set(outcome.0.saved.map(\.sample.type))
        if !types.isEmpty { broadcaster.publish(StoreChange(types: [], sampleTypes: types, anchor: QueryAnchor(rawValue: outcome.1))) }
        return outcome.0
    }

    public func samples(_ query: QuantitySampleQuery) async throws -> [StoredQuantitySample] {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        let sql = SQLiteSampleQueryBuilder(sealer: sealer).select(query)
        let sealer = self.sealer
        return try await read { db in
            try Row.fetchAll(db, sql: sql.text, arguments: sql.arguments).map { try SQLiteSampleCoding.stored($0, sealer: sealer) }
        }
    }

    public func sampleChanges(_ query: AnchoredSampleQuery) async throws -> AnchoredSampleQueryResult {
        if let limit = query.limit, limit < 0 { throw HealthStoreError.invalidArgument("limit must not be negative") }
        let builder = SQLiteSampleQueryBuilder(sealer: sealer)
        let added = builder.added(query)
        let deleted = builder.deleted(query)
        let sealer = self.sealer
        return try await read { db in
            let current = try Int64.fetchOne(db, sql: "SELECT value FROM anchor_counter") ?? 0
            let stored = try Row.fetchAll(db, sql: added.text, arguments: added.arguments).map { try SQLiteSampleCoding.stored($0, sealer: sealer) }
            let gone = try Row.fetchAll(db, sql: deleted.text, arguments: deleted.arguments).map { try SQLiteSampleCoding.deleted($0, sealer: sealer) }
            return AnchoredQueryMerge.merge(added: stored, deleted: gone, limit: query.limit, current: QueryAnchor(rawValue: current))
        }
    }

    public func deleteSamples(type: QuantityType?, predicate: SamplePredicate?) async throws -> Int {
        let now = clock.now.timeIntervalSince1970
        let sealer = self.sealer
        let select = SQLiteSampleQueryBuilder(sealer: sealer).forDeletion(type: type, predicate: predicate)
        let result = try await write { db -> (Int, Set<QuantityType>, Int64) in
            var writer = try SQLiteRecordWriter(db: db, sealer: sealer)
            let (count, types) = try writer.deleteSamples(select, now: now)
            try writer.finish()
            return (count, types, writer.anchor)
        }
        if !result.1.isEmpty { broadcaster.publish(StoreChange(types: [], sampleTypes: result.1, anchor: QueryAnchor(rawValue: result.2))) }
        if result.0 > 0 { await truncateWAL() }
        return result.0
    }
}
