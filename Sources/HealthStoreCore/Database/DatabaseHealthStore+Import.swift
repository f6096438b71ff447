import ClinicalRecords
import FHIR
import Foundation

extension DatabaseHealthStore {
    /// Stores resources from one source in one transaction: the producer is pulled in batches
    /// on another thread while earlier batches are written, and any throw (the producer's or
    /// the database's) rolls the whole import back.
    public func importResources(source: RecordSource, from producer: some ResourceProducer) async throws -> ImportOutcome {
        let now = clock.now.timeIntervalSince1970
        let result = try await write { w -> (ImportOutcome, Set<ClinicalType>, Int64) in
            let sealer = w.sealer
            let sourceIdentifier = source.identifier
            let feed = ProducerFeed(producer) { c in try PreparedResource(c, source: sourceIdentifier, sealer: sealer) }
            do {
                var batches = RecordBatches(writer: w, sourceID: try await w.sourceID(for: source), now: now)
                try await batches.lookAtSource()
                while let batch = try await feed.next() {
                    try await batches.store(batch)
                    BackgroundRelease.release(consume batch)
                }
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
        // Usually nothing is gone: a read finds that without taking the write lock.
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

    public func resourceCount(source: String, resourceTypes: Set<FHIRResourceType>?) async throws -> Int {
        var count = sql("SELECT count(*) FROM resource r JOIN source s ON ")
        count += count.sameScope("s", "r") + "s.id = r.source_id WHERE " + count.scope("r") + " AND s.identity = "
        count += count.bind(ConsentCoding.sourceIdentity(source, sealer))
        if let resourceTypes {
            var binds: [String] = []
            for type in resourceTypes.sorted() { binds.append(count.bind(type.rawValue)) }
            count += " AND r.resource_type IN (" + (binds.isEmpty ? "NULL" : binds.joined(separator: ", ")) + ")"
        }
        let counting = count
        return Int(try await read { session in try await session.row(counting)?.int(0) ?? 0 })
    }

    /// Deletes a source's resources that a filter (appended after the source condition)
    /// matches, leaving tombstones for the records among them, numbered in row order.
    private func removeResources(
        _ w: StoreWriter, sourceID: Int64, where filter: (inout SQLStatement) -> Void
    ) async throws -> (Int, Set<ClinicalType>) {
        let now = clock.now.timeIntervalSince1970
        let added = dialect.resourceAddedColumn
        var tombstones = w.sql("INSERT INTO tombstone (")
        tombstones += tombstones.personColumn + "anchor, identity, source_id, resource_type, clinical_type, resource_id, deleted_date, added_anchor, dated) SELECT "
        tombstones += tombstones.personColumn + tombstones.bind(w.anchor) + " + row_number() OVER (ORDER BY id), identity, source_id, resource_type, "
        tombstones += "clinical_type, resource_id, " + tombstones.bind(now) + ", \(added), COALESCE(clinical_date, added_date) FROM resource"
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
    let now: Double
    var outcome = ImportOutcome()
    var types = Set<ClinicalType>()
    /// What this import inserted, kept while the source held no row when the import began:
    /// then only a batch that repeats one of these needs the lookup of stored versions.
    private var insertedIntoEmptySource: Set<IdentityKey>?
    /// Whether the source has tombstones (a record that comes back loses its tombstone); an
    /// import creates none, so asking once is enough.
    private var sourceHasTombstones = true

    private typealias Item = PreparedResource

    init(writer: StoreWriter, sourceID: Int64, now: Double) {
        self.writer = writer
        self.sourceID = sourceID
        self.now = now
    }

    /// Asks once what every batch would otherwise ask again: whether the source holds any row,
    /// and any tombstone. (The import holds the write lock, so neither changes meanwhile.)
    mutating func lookAtSource() async throws {
        let w = writer
        var held = w.sql("SELECT count(*) FROM (SELECT 1 FROM resource WHERE ")
        held += held.scope() + " AND source_id = " + held.bind(sourceID) + " LIMIT 1) AS held"
        insertedIntoEmptySource = try await w.session.row(held)?.int(0) == 0 ? [] : nil
        var gone = w.sql("SELECT count(*) FROM (SELECT 1 FROM tombstone WHERE ")
        gone += gone.scope() + " AND source_id = " + gone.bind(sourceID) + " LIMIT 1) AS gone"
        sourceHasTombstones = try await w.session.row(gone)?.int(0) != 0
    }

    /// Stores a batch; a resource that repeats an identity of the batch starts a new one, so
    /// the repeat updates what came before it.
    mutating func store(_ batch: [PreparedResource]) async throws {
        var chunk: [Item] = []
        chunk.reserveCapacity(batch.count)
        var seen = Set<IdentityKey>(minimumCapacity: batch.count)
        for item in batch {
            if !seen.insert(IdentityKey(item.identity)).inserted {
                try await storeUnique(chunk)
                chunk = []
                seen = [IdentityKey(item.identity)]
            }
            chunk.append(item)
        }
        try await storeUnique(chunk)
    }

    private mutating func storeUnique(_ chunk: [Item]) async throws {
        guard !chunk.isEmpty else { return }
        let w = writer
        var existing: [Data: (id: Int64, digest: Data, type: String?)] = [:]
        if insertedIntoEmptySource.map({ inserted in !inserted.isEmpty && chunk.contains { inserted.contains(IdentityKey($0.identity)) } }) ?? true {
            var find = w.sql("SELECT id, identity, digest, clinical_type FROM resource WHERE ")
            find += find.scope() + " AND identity IN (" + find.list(chunk.map(\.identity)) + ")"
            for row in try await w.session.rows(find) { existing[try row.data(1)] = (try row.int(0), try row.data(2), try row.optionalString(3)) }
        }

        var inserts: [(Item, Int64)] = []
        inserts.reserveCapacity(chunk.count)
        var updates: [(Item, Int64, Int64)] = []
        for item in chunk {
            let previous: ClinicalType?
            let stored = existing.isEmpty ? nil : existing[item.identity]
            if let e = stored {
                if e.digest == item.digest {
                    if item.clinicalType == nil { outcome.notRecords += 1 } else { outcome.unchanged += 1 }
                    continue
                }
                updates.append((item, e.id, w.nextAnchor()))
                previous = e.type.flatMap(ClinicalType.init(rawValue:))
            } else {
                inserts.append((item, w.nextAnchor()))
                previous = nil
            }
            count(item.clinicalType, inserted: stored == nil, previous: previous)
        }
        if !updates.isEmpty { try await update(updates) }
        if !inserts.isEmpty {
            try await insert(inserts)
            insertedIntoEmptySource?.formUnion(inserts.lazy.map { IdentityKey($0.0.identity) })
        }
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
        // The replaced bytes are read and written back as values, not copied by INSERT … SELECT:
        // Citus cannot keep an INSERT … SELECT into a table with an identity column to one
        // shard (docs/scaling.md, "Checked on a cluster").
        var replaced = w.sql("SELECT id, anchor, digest, data FROM resource WHERE ")
        replaced += replaced.scope() + " AND id IN (" + replaced.list(updates.map(\.1)) + ")"
        let versions = try await w.session.rows(replaced).map { row -> [SQLValue] in
            [.int(try row.int(0)), .int(try row.int(1)), .double(now), .blob(try row.data(2)), .blob(try row.data(3))]
        }
        try await w.insert("INSERT INTO resource_version (resource_row, anchor, replaced_date, digest, data) VALUES ", versions)
        for start in stride(from: 0, to: updates.count, by: w.dialect.rowsPerStatement) {
            var q = w.sql("WITH u (id, clinical_type, category, display_name, fhir_version, source_url, clinical_date, clinical_date_text, anchor, digest, data) AS (VALUES ")
            var rows: [String] = []
            for (item, id, anchor) in updates[start..<min(start + w.dialect.rowsPerStatement, updates.count)] {
                var values = [q.typed(.int(id)), q.typed(.text(item.clinicalType?.rawValue)), q.typed(.text(item.category))]
                values.append(q.typed(.blob(item.sealedDisplayName.data)))
                values += [q.typed(.text(item.fhirVersion)), q.typed(.blob(item.sealedSourceURL?.data))]
                values += [q.typed(.double(item.clinicalDate)), q.typed(.text(item.clinicalDateText))]
                values += [q.typed(.int(anchor)), q.typed(.blob(item.digest)), q.typed(.blob(item.sealedData))]
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
        let (sourceID, now) = (self.sourceID, self.now)
        try await w.insert(
            """
            INSERT INTO resource (\(w.dialect.resourceAddedColumn), identity, source_id, resource_type, clinical_type, resource_id, display_name,
            fhir_version, source_url, clinical_date, clinical_date_text, added_date, anchor, digest, data, category) VALUES 
            """, width: 16, count: inserts.count
        ) { i, row in
            let (item, anchor) = inserts[i]
            try item.insertRow(anchor: anchor, sourceID: sourceID, now: now, into: &row)
        }
        guard sourceHasTombstones else { return }
        var tombstones = w.sql("DELETE FROM tombstone WHERE ")
        tombstones += tombstones.scope() + " AND identity IN (" + tombstones.list(inserts.map(\.0.identity)) + ")"
        try await w.session.run(tombstones)
    }
}

/// An identity key in a set: hashed by its first eight bytes (a key is a SHA-256 or HMAC
/// output, so they are as good as any), compared whole. Hashing all of each key twice per
/// resource was a measurable part of a large page's import.
struct IdentityKey: Hashable {
    let bytes: Data

    init(_ bytes: Data) { self.bytes = bytes }

    func hash(into hasher: inout Hasher) {
        var prefix: UInt64 = 0
        withUnsafeMutableBytes(of: &prefix) { out in
            bytes.withUnsafeBytes { b in out.copyMemory(from: UnsafeRawBufferPointer(rebasing: b.prefix(8))) }
        }
        hasher.combine(prefix)
        hasher.combine(bytes.count)
    }

    static func == (a: IdentityKey, b: IdentityKey) -> Bool { a.bytes == b.bytes }
}
