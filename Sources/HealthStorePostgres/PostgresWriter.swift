import ClinicalRecords
import Foundation
import HealthStoreCore

/// Writes inside one transaction that holds the person's lock, numbering every change with the
/// person's next anchor; ``finish()`` stores the counter.
final class PostgresWriter {
    let session: PGSession
    let person: String
    let sealer: any RecordSealer
    private(set) var anchor: Int64
    private let startAnchor: Int64

    init(session: PGSession, person: String, sealer: any RecordSealer, anchor: Int64) {
        self.session = session
        self.person = person
        self.sealer = sealer
        self.anchor = anchor
        startAnchor = anchor
    }

    func nextAnchor() -> Int64 {
        anchor += 1
        return anchor
    }

    /// Takes `count` anchors at once; returns the first.
    func nextAnchors(_ count: Int) -> Int64 {
        let first = anchor + 1
        anchor += Int64(count)
        return first
    }

    func finish() async throws {
        guard anchor != startAnchor else { return }
        var q = query("UPDATE person SET anchor = ")
        q += q.bind(anchor) + " WHERE person_id = $1"
        try await session.run(q)
    }

    /// A query with the person bound as `$1`.
    func query(_ head: String) -> PGQuery {
        var q = PGQuery()
        _ = q.bind(person)
        q += head
        return q
    }

    /// The row id of a source, made when new; its name is updated when it changed.
    func sourceID(for source: RecordSource) async throws -> Int64 {
        let identity = ConsentCoding.sourceIdentity(source.identifier, sealer)
        var find = query("SELECT id, name FROM source WHERE person_id = $1 AND identity = ")
        find += find.bind(identity)
        if let row = try await session.row(find) {
            let id = try row.int(0)
            if try row.opened(1, sealer) != source.name {
                var update = query("UPDATE source SET name = ")
                update += update.bind(try sealer.seal(Data(source.name.utf8))) + " WHERE person_id = $1 AND id = " + update.bind(id)
                try await session.run(update)
            }
            return id
        }
        var insert = query("INSERT INTO source (person_id, identity, identifier, name) VALUES ($1, ")
        insert += insert.bind(identity) + ", " + insert.bind(try sealer.seal(Data(source.identifier.utf8))) + ", "
        insert += insert.bind(try sealer.seal(Data(source.name.utf8))) + ") RETURNING id"
        guard let id = try await session.row(insert)?.int(0) else { throw HealthStoreError.database("no id for a new source") }
        return id
    }

    /// The id of a source if it exists.
    func existingSourceID(_ identifier: String) async throws -> Int64? {
        var find = query("SELECT id FROM source WHERE person_id = $1 AND identity = ")
        find += find.bind(ConsentCoding.sourceIdentity(identifier, sealer))
        return try await session.row(find)?.int(0)
    }
}
