import ClinicalRecords
import FHIR
import Dispatch
import Foundation

extension DatabaseHealthStore {
    /// Stores resources from one source in one transaction: the producer is pulled in batches
    /// on another thread while earlier batches are written, and any throw (the producer's or
    /// the database's) rolls the whole import back.
    public func importResources(source: RecordSource, from producer: some ResourceProducer) async throws -> ImportOutcome {
        let now = clock.now.timeIntervalSince1970
        let result = try await write { w -> (ImportOutcome, Set<ClinicalType>, Int64) in
            let feed = ProducerFeed(producer)
            do {
                var batches = RecordBatches(writer: w, sourceID: try await w.sourceID(for: source), sourceIdentifier: source.identifier, now: now)
                while let batch = try await feed.next() { try await batches.store(batch) }
                return (batches.outcome, batches.types, w.anchor)
            } catch {
                await feed.drain()
                throw error
            }
        }
        publish(StoreChange(types: result.1, anchor: QueryAnchor(rawValue: result.2)))
        return result.0
    }

    public func delete(source: String, resourceType: FHIRResourceType?, identifier: String?) async throws -> Int {
        let result = try await write { w -> (Int, Set<ClinicalType>, Int64) in
            guard let sourceID = try await w.existingSourceID(source) else { return (0, [], w.anchor) }
            let (count, types) = try await removeResources(w, sourceID: sourceID) { q in
                if let resourceType, let identifier {
                    q += " AND identity = " + q.bind(w.sealer.identityKey([source, resourceType.rawValue, identifier]))
                } else if let resourceType {
                    q += " AND resource_type = " + q.bind(resourceType.rawValue)
                }
            }
            return (count, types, w.anchor)
        }
        return await finishDeletion(result)
    }

    public func deleteResources(source: String, keeping: Set<ResourceKey>, resourceTypes: Set<FHIRResourceType>?) async throws -> Int {
        let kept = Set(keeping.map(\.bytes))
        // Usually nothing is gone: when the source holds exactly as many resources (of the
        // types judged) as were kept — all of which the download just stored — none is; a
        // count answers that from the index, without reading rows or taking the write lock.
        var count = sql("SELECT count(*) FROM resource r JOIN source s ON ")
        count += count.sameScope("s", "r") + "s.id = r.source_id WHERE " + count.scope("r") + " AND s.identity = "
        count += count.bind(ConsentCoding.sourceIdentity(source, sealer))
        if let resourceTypes {
            var binds: [String] = []
            for type in resourceTypes.sorted() { binds.append(count.bind(type.rawValue)) }
            count += " AND r.resource_type IN (" + (binds.isEmpty ? "NULL" : binds.joined(separator: ", ")) + ")"
        }
        let counting = count
        let held = try await read { session in try await session.row(counting)?.int(0) ?? 0 }
        if held == Int64(kept.count) { return 0 }
        var probe = sql("SELECT r.identity, r.resource_type FROM resource r JOIN source s ON ")
        probe += probe.sameScope("s", "r") + "s.id = r.source_id WHERE " + probe.scope("r") + " AND s.identity = " + probe.bind(ConsentCoding.sourceIdentity(source, sealer))
        let final = probe
        let anyGone = try await read { session in
            try await session.rows(final).contains { row in
                guard !kept.contains(try row.data(0)) else { return false }
                return resourceTypes.map { $0.contains(FHIRResourceType(rawValue: (try? row.string(1)) ?? "")) } ?? true
            }
        }
        guard anyGone else { return 0 }
        let result = try await write { w -> (Int, Set<ClinicalType>, Int64) in
            guard let sourceID = try await w.existingSourceID(source) else { return (0, [], w.anchor) }
            var find = w.sql("SELECT identity, resource_type FROM resource WHERE ")
            find += find.scope() + " AND source_id = " + find.bind(sourceID)
            var gone: [Data] = []
            for row in try await w.session.rows(find) {
                let identity = try row.data(0)
                guard !kept.contains(identity) else { continue }
                if let resourceTypes, !resourceTypes.contains(FHIRResourceType(rawValue: try row.string(1))) { continue }
                gone.append(identity)
            }
            var count = 0
            var types = Set<ClinicalType>()
            // A bounded number of parameters per statement (SQLite allows 32,766).
            for start in stride(from: 0, to: gone.count, by: 500) {
                let chunk = gone[start..<min(start + 500, gone.count)]
                let (n, t) = try await removeResources(w, sourceID: sourceID) { q in
                    q += " AND identity IN (" + chunk.map { q.bind($0) }.joined(separator: ", ") + ")"
                }
                count += n
                types.formUnion(t)
            }
            return (count, types, w.anchor)
        }
        return await finishDeletion(result)
    }

    /// Deletes a source's resources that a filter (appended after the source condition)
    /// matches, leaving tombstones for the records among them, numbered in row order.
    private func removeResources(
        _ w: StoreWriter, sourceID: Int64, where filter: (inout SQLStatement) -> Void
    ) async throws -> (Int, Set<ClinicalType>) {
        let now = clock.now.timeIntervalSince1970
        let added = dialect.resourceAddedColumn
        var tombstones = w.sql("INSERT INTO tombstone (")
        tombstones += tombstones.personColumn + "anchor, identity, source_id, resource_type, clinical_type, resource_id, deleted_date, added_anchor) SELECT "
        tombstones += tombstones.personColumn + tombstones.bind(w.anchor) + " + row_number() OVER (ORDER BY id), identity, source_id, resource_type, "
        tombstones += "clinical_type, resource_id, " + tombstones.bind(now) + ", \(added) FROM resource"
        tombstones += " WHERE " + tombstones.scope() + " AND source_id = " + tombstones.bind(sourceID)
        filter(&tombstones)
        tombstones += " AND clinical_type IS NOT NULL RETURNING clinical_type"
        let types = try await w.session.rows(tombstones).map { try $0.string(0) }
        _ = w.nextAnchors(types.count)
        var remove = w.sql("DELETE FROM resource")
        remove += " WHERE " + remove.scope() + " AND source_id = " + remove.bind(sourceID)
        filter(&remove)
        remove += " RETURNING id"
        let count = try await w.session.rows(remove).count
        return (count, Set(types.compactMap(ClinicalType.init(rawValue:))))
    }

    private func finishDeletion(_ result: (Int, Set<ClinicalType>, Int64)) async -> Int {
        publish(StoreChange(types: result.1, anchor: QueryAnchor(rawValue: result.2)))
        if result.0 > 0 { try? await database.scrub(vacuum: false) }
        return result.0
    }
}

/// Writes batches of one source's resources: one lookup of the stored versions per batch,
/// then one statement each for history, updates, inserts and returning tombstones. Changes
/// take anchors in the producer's order, as one-at-a-time writes would.
struct RecordBatches {
    let writer: StoreWriter
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

    init(writer: StoreWriter, sourceID: Int64, sourceIdentifier: String, now: Double) {
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
        for (resource, (identity, digest)) in zip(batch, keysAndDigests(batch)) {
            if !seen.insert(identity).inserted {
                try await storeUnique(chunk)
                chunk = []
                seen = [identity]
            }
            chunk.append(Item(resource: resource, identity: identity, digest: digest))
        }
        try await storeUnique(chunk)
    }

    /// Each resource's identity key and content digest. Hashing is most of the writer's own
    /// work, so a large batch is hashed on two threads while the writer waits for it.
    private func keysAndDigests(_ batch: [ClassifiedResource]) -> [(Data, Data)] {
        let sealer = writer.sealer
        let source = sourceIdentifier
        @Sendable func hash(_ c: ClassifiedResource) -> (Data, Data) {
            let r = c.resource
            return (sealer.identityKey([source, r.resourceType.rawValue, r.identifier]), sealer.contentDigest(r.data))
        }
        guard batch.count >= 64 else { return batch.map(hash) }
        let empty = (Data(), Data())
        var out = [(Data, Data)](repeating: empty, count: batch.count)
        let half = batch.count / 2
        out.withUnsafeMutableBufferPointer { buffer in
            // Two halves, each written by one thread at its own indices.
            nonisolated(unsafe) let target = buffer
            DispatchQueue.concurrentPerform(iterations: 2) { part in
                for i in (part == 0 ? 0..<half : half..<batch.count) { target[i] = hash(batch[i]) }
            }
        }
        return out
    }

    private mutating func storeUnique(_ chunk: [Item]) async throws {
        guard !chunk.isEmpty else { return }
        let w = writer
        var find = w.sql("SELECT id, identity, digest, clinical_type FROM resource WHERE ")
        find += find.scope() + " AND identity IN (" + find.list(chunk.map(\.identity)) + ")"
        var existing: [Data: (id: Int64, digest: Data, type: String?)] = [:]
        for row in try await w.session.rows(find) { existing[try row.data(1)] = (try row.int(0), try row.data(2), try row.optionalString(3)) }

        var inserts: [(Item, Int64)] = []
        var updates: [(Item, Int64, Int64)] = []
        for item in chunk {
            let previous: ClinicalType?
            if let e = existing[item.identity] {
                if e.digest == item.digest {
                    if item.resource.clinicalType == nil { outcome.notRecords += 1 } else { outcome.unchanged += 1 }
                    continue
                }
                updates.append((item, e.id, w.nextAnchor()))
                previous = e.type.flatMap(ClinicalType.init(rawValue:))
            } else {
                inserts.append((item, w.nextAnchor()))
                previous = nil
            }
            count(item.resource.clinicalType, inserted: existing[item.identity] == nil, previous: previous)
        }
        if !updates.isEmpty { try await update(updates) }
        if !inserts.isEmpty { try await insert(inserts) }
    }

    /// Counts one stored change: an insert or update of a record, or a resource that is not one.
    private mutating func count(_ type: ClinicalType?, inserted: Bool, previous: ClinicalType?) {
        guard let type else {
            outcome.notRecords += 1
            if inserted { outcome.contextInserted += 1 } else { outcome.contextUpdated += 1 }
            return
        }
        types.insert(type)
        if inserted {
            outcome.inserted += 1
        } else {
            outcome.updated += 1
            if let previous { types.insert(previous) }
        }
    }

    /// Keeps the replaced bytes as versions, then writes the new ones.
    private func update(_ updates: [(Item, Int64, Int64)]) async throws {
        let w = writer
        var versions = w.sql("INSERT INTO resource_version (")
        versions += versions.personColumn + "resource_row, anchor, replaced_date, digest, data) SELECT " + versions.personColumn + "id, anchor, "
        versions += versions.bind(now) + ", digest, data FROM resource WHERE " + versions.scope() + " AND id IN (" + versions.list(updates.map(\.1)) + ")"
        try await w.session.run(versions)
        for start in stride(from: 0, to: updates.count, by: w.dialect.rowsPerStatement) {
            var q = w.sql("WITH u (id, clinical_type, category, display_name, fhir_version, source_url, clinical_date, clinical_date_text, anchor, digest, data) AS (VALUES ")
            var rows: [String] = []
            for (item, id, anchor) in updates[start..<min(start + w.dialect.rowsPerStatement, updates.count)] {
                let c = item.resource
                let r = c.resource
                var values = [q.typed(.int(id)), q.typed(.text(c.clinicalType?.rawValue)), q.typed(.text(c.category.rawValue))]
                values.append(q.typed(.blob(try w.sealer.seal(Data(c.displayName.utf8)))))
                values += [q.typed(.text(r.fhirVersion.stringRepresentation)), q.typed(.blob(try r.sourceURL.map { try w.sealer.seal(Data($0.absoluteString.utf8)) }))]
                values += [q.typed(.double(c.clinicalDate?.date.timeIntervalSince1970)), q.typed(.text(c.clinicalDate?.text))]
                values += [q.typed(.int(anchor)), q.typed(.blob(item.digest)), q.typed(.blob(try w.sealer.seal(r.data)))]
                rows.append("(" + values.joined(separator: ", ") + ")")
            }
            q += rows.joined(separator: ", ")
            q += """
                ) UPDATE resource AS r SET clinical_type = u.clinical_type, category = u.category, display_name = u.display_name,
                fhir_version = u.fhir_version, source_url = u.source_url, clinical_date = u.clinical_date, clinical_date_text = u.clinical_date_text,
                anchor = u.anchor, digest = u.digest, data = u.data FROM u WHERE \(q.scope("r")) AND r.id = u.id
                """
            try await w.session.run(q)
        }
    }

    /// Inserts new rows (each taking the anchor it is added at as its first-added anchor) and
    /// removes the tombstones of records that come back after a deletion.
    private func insert(_ inserts: [(Item, Int64)]) async throws {
        let w = writer
        var rows: [[SQLValue]] = []
        for (item, anchor) in inserts {
            let c = item.resource
            let r = c.resource
            var row: [SQLValue] = [.int(anchor), .blob(item.identity), .int(sourceID), .text(r.resourceType.rawValue), .text(c.clinicalType?.rawValue)]
            row += [.blob(try w.sealer.seal(Data(r.identifier.utf8))), .blob(try w.sealer.seal(Data(c.displayName.utf8)))]
            row += [.text(r.fhirVersion.stringRepresentation), .blob(try r.sourceURL.map { try w.sealer.seal(Data($0.absoluteString.utf8)) })]
            row += [.double(c.clinicalDate?.date.timeIntervalSince1970), .text(c.clinicalDate?.text), .double(now), .int(anchor), .blob(item.digest)]
            row += [.blob(try w.sealer.seal(r.data)), .text(c.category.rawValue)]
            rows.append(row)
        }
        try await w.insert("""
            INSERT INTO resource (\(w.dialect.resourceAddedColumn), identity, source_id, resource_type, clinical_type, resource_id, display_name,
            fhir_version, source_url, clinical_date, clinical_date_text, added_date, anchor, digest, data, category) VALUES 
            """, rows)
        var tombstones = w.sql("DELETE FROM tombstone WHERE ")
        tombstones += tombstones.scope() + " AND identity IN (" + tombstones.list(inserts.map(\.0.identity)) + ")"
        try await w.session.run(tombstones)
    }
}
