import ByteEncodings
import FHIR
import Foundation
import GRDB
import SmartHealthCards

extension SQLiteHealthStore {
    public func saveVerifiableRecords(_ records: [(VerifiableClinicalRecord, CardStatus)]) async throws -> CardSaveOutcome {
        let now = clock.now.timeIntervalSince1970
        let sealer = self.sealer
        return try await write { db in
            var writer = try SQLiteRecordWriter(db: db, sealer: sealer)
            var outcome = CardSaveOutcome()
            for (record, status) in records {
                let identity = sealer.identityKey(["smart-health-card", record.jws])
                let statusDetail = try sealer.seal(Data(JSONWriter.minified(VerifiableRecordCoding.status(status))))
                if let row = try Row.fetchOne(db, sql: "SELECT id, status, status_detail FROM verifiable_record WHERE identity = ?", arguments: [identity]) {
                    let old = try VerifiableRecordCoding.status(name: row[1], detail: sealer.open(row[2]))
                    if old == status {
                        outcome.unchanged += 1
                    } else {
                        try db.execute(
                            sql: "UPDATE verifiable_record SET status = ?, status_detail = ?, anchor = ? WHERE id = ?",
                            arguments: [status.name, statusDetail, writer.nextAnchor(), row[0] as Int64])
                        outcome.updated += 1
                    }
                    continue
                }
                try db.execute(
                    sql: """
                        INSERT INTO verifiable_record (identity, record_types, issued_date, relevant_date, expiration_date, added_date, anchor,
                        status, status_detail, details, jws) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        identity, record.recordTypes.joined(separator: " "), record.issuedDate.timeIntervalSince1970,
                        record.relevantDate?.timeIntervalSince1970, record.expirationDate?.timeIntervalSince1970, now, writer.nextAnchor(),
                        status.name, statusDetail, try sealer.seal(Data(JSONWriter.minified(VerifiableRecordCoding.details(record)))),
                        try sealer.seal(record.dataRepresentation),
                    ])
                outcome.inserted += 1
            }
            try writer.finish()
            return outcome
        }
    }

    public func verifiableRecords(_ query: VerifiableRecordQuery) async throws -> [StoredVerifiableRecord] {
        var sql = "SELECT id, identity, record_types, issued_date, relevant_date, expiration_date, added_date, status, status_detail, details, jws FROM verifiable_record"
        var args = StatementArguments()
        if let interval = query.relevantDate {
            sql += " WHERE relevant_date >= ? AND relevant_date <= ?"
            args += [interval.start.timeIntervalSince1970, interval.end.timeIntervalSince1970]
        }
        sql += " ORDER BY relevant_date, id"
        let finalSQL = sql
        let finalArgs = args
        let sealer = self.sealer
        let records = try await read { db in
            try Row.fetchAll(db, sql: finalSQL, arguments: finalArgs).map { try VerifiableRecordCoding.stored($0, sealer: sealer) }
        }
        return records.filter(query.matches)
    }

    public func deleteVerifiableRecord(identifier: String) async throws -> Bool {
        guard identifier.utf8.count <= 256, let identity = (try? Hex.decode(identifier)).map({ Data($0) }) else { return false }
        let deleted = try await write { db in
            var writer = try SQLiteRecordWriter(db: db, sealer: PlainSealer())
            try db.execute(sql: "DELETE FROM verifiable_record WHERE identity = ?", arguments: [identity])
            let deleted = db.changesCount > 0
            if deleted { _ = writer.nextAnchor() }
            try writer.finish()
            return deleted
        }
        if deleted { await truncateWAL() }
        return deleted
    }
}

/// How cards are written to and read from rows.
package enum VerifiableRecordCoding {
    package static func details(_ r: VerifiableClinicalRecord) -> JSONValue {
        .object(JSONObject([
            "issuer": .string(r.issuerIdentifier),
            "fullName": .string(r.subject.fullName),
            "dateOfBirth": r.subject.dateOfBirth.map { .string($0.text) } ?? .null,
            "itemNames": .array(r.itemNames.map(JSONValue.string)),
            "fhirResourceTypes": .array(r.fhirResourceTypes.map(JSONValue.string)),
        ]))
    }

    package static func status(_ s: CardStatus) -> JSONValue {
        switch s {
        case .verified(let trusted): return .object(JSONObject(["trusted": .bool(trusted)]))
        case .unverified(let codes): return .object(JSONObject(["codes": .array(codes.map(JSONValue.string))]))
        }
    }

    package static func status(name: String, detail: Data) throws -> CardStatus {
        let o = try JSONReader().read(detail).objectValue ?? JSONObject()
        if name == "verified" { return .verified(trusted: o.bool("trusted") ?? false) }
        return .unverified(codes: o.list("codes").compactMap(\.stringValue))
    }

    static func stored(_ row: Row, sealer: any RecordSealer) throws -> StoredVerifiableRecord {
        let identity: Data = row[1]
        let recordTypes: String = row[2]
        let issued: Double = row[3]
        let relevant: Double? = row[4]
        let expiration: Double? = row[5]
        let added: Double = row[6]
        let status: String = row[7]
        let statusDetail: Data = row[8]
        let details: Data = row[9]
        let jws: Data = row[10]
        return try stored(
            identity: identity, recordTypes: recordTypes, issued: issued, relevant: relevant, expiration: expiration, added: added, status: status,
            statusDetail: statusDetail, details: details, jws: jws, sealer: sealer)
    }

    /// Rebuilds a stored card from its row's values (sealed ones as stored).
    package static func stored(
        identity: Data, recordTypes: String, issued: Double, relevant: Double?, expiration: Double?, added: Double, status statusName: String,
        statusDetail: Data, details sealedDetails: Data, jws: Data, sealer: any RecordSealer
    ) throws -> StoredVerifiableRecord {
        let details = try JSONReader().read(sealer.open(sealedDetails)).objectValue ?? JSONObject()
        let record = VerifiableClinicalRecord(
            recordTypes: recordTypes.split(separator: " ").map(String.init),
            issuerIdentifier: details.string("issuer") ?? "",
            subject: .init(fullName: details.string("fullName") ?? "", dateOfBirth: details.date("dateOfBirth")),
            issuedDate: Date(timeIntervalSince1970: issued),
            relevantDate: relevant.map(Date.init(timeIntervalSince1970:)),
            expirationDate: expiration.map(Date.init(timeIntervalSince1970:)),
            itemNames: details.list("itemNames").compactMap(\.stringValue),
            dataRepresentation: try sealer.open(jws),
            fhirResourceTypes: details.list("fhirResourceTypes").compactMap(\.stringValue))
        return StoredVerifiableRecord(
            identifier: Hex.encode(identity), record: record,
            status: try status(name: statusName, detail: sealer.open(statusDetail)),
            addedDate: Date(timeIntervalSince1970: added))
    }
}
