import ByteEncodings
import FHIR
import Foundation
import SmartHealthCards
import VerifiableRecords

extension DatabaseHealthStore {
    public func saveVerifiableRecords(_ records: [(VerifiableClinicalRecord, CardStatus)]) async throws -> CardSaveOutcome {
        let now = clock.now.timeIntervalSince1970
        return try await write { w in
            let sealer = w.sealer
            var outcome = CardSaveOutcome()
            for (record, status) in records {
                // A card's identity is its JWS; a DCC's its QR text, under its own label.
                let label = record.sourceType == .smartHealthCard ? "smart-health-card" : "eu-dcc"
                let identity = sealer.identityKey([label, record.jws])
                let statusDetail = try sealer.seal(Data(JSONWriter.minified(VerifiableRecordCoding.status(status))))
                var find = w.sql("SELECT id, status, status_detail FROM verifiable_record WHERE ")
                find += find.scope() + " AND identity = " + find.bind(identity)
                if let row = try await w.session.row(find) {
                    let old = try VerifiableRecordCoding.status(name: try row.string(1), detail: sealer.open(try row.data(2)))
                    if old == status {
                        outcome.unchanged += 1
                    } else {
                        var update = w.sql("UPDATE verifiable_record SET status = ")
                        update += update.bind(status.name) + ", status_detail = " + update.bind(statusDetail) + ", anchor = " + update.bind(w.nextAnchor())
                        update += " WHERE " + update.scope() + " AND id = " + update.bind(try row.int(0))
                        try await w.session.run(update)
                        outcome.updated += 1
                    }
                    continue
                }
                var insert = w.sql("INSERT INTO verifiable_record (")
                insert += insert.personColumn + (w.dialect.rowIDIsAnchor ? "id, " : "")
                insert += "identity, record_types, issued_date, relevant_date, expiration_date, added_date, anchor, status, status_detail, details, jws) VALUES ("
                let anchor = insert.bind(w.nextAnchor())
                var values = w.dialect.rowIDIsAnchor ? [anchor] : []
                values += [
                    insert.bind(identity), insert.bind(record.recordTypes.joined(separator: " ")), insert.bind(record.issuedDate.timeIntervalSince1970),
                    insert.bind(record.relevantDate?.timeIntervalSince1970), insert.bind(record.expirationDate?.timeIntervalSince1970), insert.bind(now), anchor,
                    insert.bind(status.name), insert.bind(statusDetail),
                    insert.bind(try sealer.seal(Data(JSONWriter.minified(VerifiableRecordCoding.details(record))))),
                    insert.bind(try sealer.seal(record.dataRepresentation)),
                ]
                insert += insert.personValue + values.joined(separator: ", ") + ")"
                try await w.session.run(insert)
                outcome.inserted += 1
            }
            return outcome
        }
    }

    public func verifiableRecords(_ query: VerifiableRecordQuery) async throws -> [StoredVerifiableRecord] {
        var q = sql("""
            SELECT id, identity, record_types, issued_date, relevant_date, expiration_date, added_date, status, status_detail, details, jws
            FROM verifiable_record WHERE 
            """)
        q += q.scope()
        if let interval = query.relevantDate {
            q += " AND relevant_date >= " + q.bind(interval.start.timeIntervalSince1970) + " AND relevant_date <= " + q.bind(interval.end.timeIntervalSince1970)
        }
        q += " ORDER BY relevant_date ASC NULLS FIRST, id"
        let sealer = self.sealer
        let final = q
        let records = try await read { session in
            try await session.rows(final).map { row in
                try VerifiableRecordCoding.stored(
                    identity: try row.data(1), recordTypes: try row.string(2), issued: try row.double(3), relevant: try row.optionalDouble(4),
                    expiration: try row.optionalDouble(5), added: try row.double(6), status: try row.string(7), statusDetail: try row.data(8),
                    details: try row.data(9), jws: try row.data(10), sealer: sealer)
            }
        }
        return records.filter(query.matches)
    }

    public func verifiableRecord(identifier: String) async throws -> StoredVerifiableRecord? {
        guard identifier.utf8.count <= 256, let identity = (try? Hex.decode(identifier)).map({ Data($0) }) else { return nil }
        var q = sql("""
            SELECT id, identity, record_types, issued_date, relevant_date, expiration_date, added_date, status, status_detail, details, jws
            FROM verifiable_record WHERE 
            """)
        q += q.scope() + " AND identity = " + q.bind(identity)
        let sealer = self.sealer
        let final = q
        return try await read { session in
            try await session.row(final).map { row in
                try VerifiableRecordCoding.stored(
                    identity: try row.data(1), recordTypes: try row.string(2), issued: try row.double(3), relevant: try row.optionalDouble(4),
                    expiration: try row.optionalDouble(5), added: try row.double(6), status: try row.string(7), statusDetail: try row.data(8),
                    details: try row.data(9), jws: try row.data(10), sealer: sealer)
            }
        }
    }

    public func deleteVerifiableRecord(identifier: String) async throws -> Bool {
        guard identifier.utf8.count <= 256, let identity = (try? Hex.decode(identifier)).map({ Data($0) }) else { return false }
        let deleted = try await write { w in
            var q = w.sql("DELETE FROM verifiable_record WHERE ")
            q += q.scope() + " AND identity = " + q.bind(identity) + " RETURNING id"
            let deleted = try await !w.session.rows(q).isEmpty
            if deleted { _ = w.nextAnchor() }
            return deleted
        }
        if deleted { try? await database.scrub(vacuum: false) }
        return deleted
    }
}
