import FHIR
import Foundation

extension DatabaseHealthStore {
    public func medicationNotes() async throws -> [String: MedicationNote] {
        var q = sql("SELECT details FROM medication_note WHERE ")
        q += q.scope()
        let final = q
        let sealer = self.sealer
        return try await read { session in
            var notes: [String: MedicationNote] = [:]
            for row in try await session.rows(final) {
                let (id, note) = try MedicationNoteCoding.read(try sealer.open(try row.data(0)))
                notes[id] = note
            }
            return notes
        }
    }

    public func saveMedicationNote(_ note: MedicationNote, for entryID: String) async throws {
        var q = sql()
        let key = MedicationNoteCoding.key(entryID, sealer)
        if note.isEmpty {
            q += "DELETE FROM medication_note WHERE " + q.scope() + " AND entry_key = " + q.bind(key)
        } else {
            q += "INSERT INTO medication_note (" + q.personColumn + "entry_key, details) VALUES (" + q.personValue + q.bind(key) + ", "
            q += q.bind(try sealer.seal(MedicationNoteCoding.details(entryID, note))) + ") ON CONFLICT (" + q.personColumn
            q += "entry_key) DO UPDATE SET details = EXCLUDED.details"
        }
        let final = q
        try await write { w in try await w.session.run(final) }
    }
}

/// A medication note as stored: its entry id and the note as JSON (sealed), under a keyed
/// digest of the entry id.
enum MedicationNoteCoding {
    static func key(_ entryID: String, _ sealer: any RecordSealer) -> Data { sealer.identityKey(["medication-note", entryID]) }

    static func details(_ entryID: String, _ note: MedicationNote) -> Data {
        var members = [JSONMember("entry", .string(entryID)), JSONMember("archived", .bool(note.archived))]
        if let nickname = note.nickname { members.append(JSONMember("nickname", .string(nickname))) }
        return Data(JSONWriter.minified(.object(JSONObject(members))))
    }

    static func read(_ data: Data) throws -> (String, MedicationNote) {
        guard let o = (try? JSONReader().read(data))?.objectValue, let id = o.string("entry") else {
            throw HealthStoreError.corruptRecord("a medication note")
        }
        return (id, MedicationNote(nickname: o.string("nickname"), archived: o["archived"]?.boolValue ?? false))
    }
}
