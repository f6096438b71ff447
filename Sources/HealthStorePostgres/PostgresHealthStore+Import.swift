import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

extension PostgresHealthStore {
    /// Stores resources from one source in one PostgreSQL transaction: the producer is pulled
    /// in batches on another thread while earlier batches are written, and any throw (the
    /// producer's or the database's) rolls the whole import back.
    public func importResources(source: RecordSource, from producer: some ResourceProducer) async throws -> ImportOutcome {
        let now = clock.now.timeIntervalSince1970
        let result = try await write { w -> (ImportOutcome, Set<ClinicalType>, Int64) in
            let feed = ProducerFeed(producer)
            do {
                var batches = PostgresRecordBatches(writer: w, sourceID: try await w.sourceID(for: source), sourceIdentifier: source.identifier, now: now)
                while let batch = try await feed.next() { try await batches.store(batch) }
                return (batches.outcome, batches.types, w.anchor)
            } catch {
                await feed.drain()
                throw error
            }
        }
        if !result.1.isEmpty { broadcaster.publish(StoreChange(types: result.1, anchor: QueryAnchor(rawValue: result.2))) }
        return result.0
    }

    public func delete(source: String, resourceType: FHIRResourceType?, identifier: String?) async throws -> Int {
        let now = clock.now.timeIntervalSince1970
        let result = try await write { w -> (Int, Set<ClinicalType>, Int64) in
            guard let sourceID = try await w.existingSourceID(source) else { return (0, [], w.anchor) }
            func filter(_ q: inout PGQuery) {
                q += " WHERE person_id = $1 AND source_id = " + q.bind(sourceID)
                if let resourceType, let identifier {
                    q += " AND identity = " + q.bind(w.sealer.identityKey([source, resourceType.rawValue, identifier]))
                } else if let resourceType {
                    q += " AND resource_type = " + q.bind(resourceType.rawValue)
                }
            }
            // Deleted records leave tombstones, numbered in row order as SQLite's writer does.
            var tombstones = w.query("""
                INSERT INTO tombstone (person_id, anchor, identity, source_id, resource_type, clinical_type, resource_id, deleted_date, added_anchor)
                SELECT person_id, 
                """)
            tombstones += tombstones.bind(w.anchor) + " + row_number() OVER (ORDER BY id), identity, source_id, resource_type, clinical_type, resource_id, "
            tombstones += tombstones.bind(now) + ", id FROM resource"
            filter(&tombstones)
            tombstones += " AND clinical_type IS NOT NULL RETURNING clinical_type"
            let types = try await w.session.rows(tombstones).map { try $0.string(0) }
            _ = w.nextAnchors(types.count)
            var remove = w.query("DELETE FROM resource")
            filter(&remove)
            remove += " RETURNING id"
            let count = try await w.session.rows(remove).count
            return (count, Set(types.compactMap(ClinicalType.init(rawValue:))), w.anchor)
        }
        if !result.1.isEmpty { broadcaster.publish(StoreChange(types: result.1, anchor: QueryAnchor(rawValue: result.2))) }
        return result.0
    }
}

/// Writes batches of one source's resources: one lookup of the stored versions per batch,
/// then one statement each for history, updates, inserts and returning tombstones. Changes
/// take anchors in the producer's order, as one-at-a-time writes would.
struct PostgresRecordBatches {
    let writer: PostgresWriter
    let sourceID: Int64
    let sourceIdentifier: String
    let now: Double
    var outcome = ImportOutcome()
    var types = Set<ClinicalType>()

    private struct Item {
        let resource: ClassifiedResource
        let identity: Data
        let digest: Data
    }

    init(writer: PostgresWriter, sourceID: Int64, sourceIdentifier: String, now: Double) {
        self.writer = writer
        self.sourceID = sourceID
        self.sourceIdentifier = sourceIdentifier
        self.now = now
    }

    /// Stores a batch; a resource that repeats an identity of the batch starts a new one, so
    /// the repeat updates what came before it.
    mutating func store(_ batch: [ClassifiedResource]) async throws {
        var chunk: [Item] = []
        var seen = Set<Data>()
        for resource in batch {
            let r = resource.resource
            let identity = writer.sealer.identityKey([sourceIdentifier, r.resourceType.rawValue, r.identifier])
            if !seen.insert(identity).inserted {
                try await storeUnique(chunk)
                chunk = []
                seen = [identity]
            }
            chunk.append(Item(resource: resource, identity: identity, digest: writer.sealer.contentDigest(r.data)))
        }
        try await storeUnique(chunk)
    }

    private mutating func storeUnique(_ chunk: [Item]) async throws {
        guard !chunk.isEmpty else { return }
        let w = writer
        var find = w.query("SELECT id, identity, digest, clinical_type FROM resource WHERE person_id = $1 AND identity IN (")
        find += find.list(chunk.map(\.identity)) + ")"
        var existing: [Data: (id: Int64, digest: Data, type: String?)] = [:]
        for row in try await w.session.rows(find) { existing[try row.data(1)] = (try row.int(0), try row.data(2), try row.optionalString(3)) }

        var inserts: [(Item, Int64)] = []
        var updates: [(Item, Int64, Int64)] = []
        for item in chunk {
            let inserted: Bool
            var previous: ClinicalType?
            if let e = existing[item.identity] {
                if e.digest == item.digest {
                    if item.resource.clinicalType == nil { outcome.notRecords += 1 } else { outcome.unchanged += 1 }
                    continue
                }
                updates.append((item, e.id, w.nextAnchor()))
                inserted = false
                previous = e.type.flatMap(ClinicalType.init(rawValue:))
            } else {
                inserts.append((item, w.nextAnchor()))
                inserted = true
            }
            guard let type = item.resource.clinicalType else {
                outcome.notRecords += 1
                continue
            }
            types.insert(type)
            if inserted {
                outcome.inserted += 1
            } else {
                outcome.updated += 1
                if let previous { types.insert(previous) }
            }
        }
        if !updates.isEmpty { try await update(updates) }
        if !inserts.isEmpty { try await insert(inserts) }
    }

    /// Keeps the replaced bytes as versions, then writes the new ones.
    private func update(_ updates: [(Item, Int64, Int64)]) async throws {
        let w = writer
        var versions = w.query("INSERT INTO resource_version (person_id, resource_row, anchor, replaced_date, digest, data) SELECT person_id, id, anchor, ")
        versions += versions.bind(now) + ", digest, data FROM resource WHERE person_id = $1 AND id IN (" + versions.list(updates.map(\.1)) + ")"
        try await w.session.run(versions)
        var q = w.query("""
            UPDATE resource r SET clinical_type = u.clinical_type, category = u.category, display_name = u.display_name, fhir_version = u.fhir_version,
            source_url = u.source_url, clinical_date = u.clinical_date, clinical_date_text = u.clinical_date_text, anchor = u.anchor,
            digest = u.digest, data = u.data FROM (VALUES
            """)
        var rows: [String] = []
        for (item, id, anchor) in updates {
            let c = item.resource
            let r = c.resource
            // Typed: a VALUES list would read a NULL as text.
            var values = [q.bind(id) + "::bigint", q.bind(c.clinicalType?.rawValue) + "::text", q.bind(c.category.rawValue) + "::text"]
            values.append(q.bind(try w.sealer.seal(Data(c.displayName.utf8))) + "::bytea")
            values += [q.bind(r.fhirVersion.stringRepresentation) + "::text", q.bind(try r.sourceURL.map { try w.sealer.seal(Data($0.absoluteString.utf8)) }) + "::bytea"]
            values += [q.bind(c.clinicalDate?.date.timeIntervalSince1970) + "::double precision", q.bind(c.clinicalDate?.text) + "::text"]
            values += [q.bind(anchor) + "::bigint", q.bind(item.digest) + "::bytea", q.bind(try w.sealer.seal(r.data)) + "::bytea"]
            rows.append("(" + values.joined(separator: ", ") + ")")
        }
        q += rows.joined(separator: ", ")
        q += """
            ) AS u(id, clinical_type, category, display_name, fhir_version, source_url, clinical_date, clinical_date_text, anchor, digest, data)
            WHERE r.person_id = $1 AND r.id = u.id
            """
        try await w.session.run(q)
    }

    /// Inserts new rows (each row's id is the anchor it is added at) and removes the tombstones
    /// of records that come back after a deletion.
    private func insert(_ inserts: [(Item, Int64)]) async throws {
        let w = writer
        var q = w.query("""
            INSERT INTO resource (person_id, id, identity, source_id, resource_type, clinical_type, resource_id, display_name, fhir_version,
            source_url, clinical_date, clinical_date_text, added_date, anchor, digest, data, category) VALUES
            """)
        let source = q.bind(sourceID)
        let added = q.bind(now)
        var rows: [String] = []
        for (item, anchor) in inserts {
            let c = item.resource
            let r = c.resource
            let a = q.bind(anchor)
            var values = ["$1", a, q.bind(item.identity), source, q.bind(r.resourceType.rawValue), q.bind(c.clinicalType?.rawValue)]
            values += [q.bind(try w.sealer.seal(Data(r.identifier.utf8))), q.bind(try w.sealer.seal(Data(c.displayName.utf8)))]
            values += [q.bind(r.fhirVersion.stringRepresentation), q.bind(try r.sourceURL.map { try w.sealer.seal(Data($0.absoluteString.utf8)) })]
            values += [q.bind(c.clinicalDate?.date.timeIntervalSince1970), q.bind(c.clinicalDate?.text), added, a, q.bind(item.digest)]
            values.append(q.bind(try w.sealer.seal(r.data)))
            values.append(q.bind(c.category.rawValue))
            rows.append("(" + values.joined(separator: ", ") + ")")
        }
        q += rows.joined(separator: ", ")
        try await w.session.run(q)
        var tombstones = w.query("DELETE FROM tombstone WHERE person_id = $1 AND identity IN (")
        tombstones += tombstones.list(inserts.map(\.0.identity)) + ")"
        try await w.session.run(tombstones)
    }
}
