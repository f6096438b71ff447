import ClinicalRecords
import Foundation
import HealthStoreCore
import Testing
import TestSupport

/// Nicknames and archiving of medication entries, on every engine (sealed where the store is).
@Suite struct MedicationNoteTests {
    @Test(arguments: StoreEngine.all)
    func notesAreKeptPerEntryAndArchivedEntriesGoLast(engine: StoreEngine) async throws {
        let w = try await ConsentWorld(engine)
        try await w.importResources([
            MedicationChoiceTests.statement("a", rxNorm: "860975", name: "Metformin 500 MG"), MedicationChoiceTests.statement("b", rxNorm: "314076", name: "Lisinopril 10 MG"),
        ])
        let before = try await w.store.annotatedMedications()
        #expect(before.count == 2 && before.allSatisfy { $0.note.isEmpty })
        let metformin = try #require(before.first { $0.entry.rxNormCodes == ["860975"] }).entry.id
        try await w.store.saveMedicationNote(MedicationNote(nickname: "  Sugar pill  ", archived: true), for: metformin)
        let after = try await w.store.annotatedMedications()
        #expect(after.last?.entry.id == metformin && after.last?.note == MedicationNote(nickname: "Sugar pill", archived: true))
        #expect(MedicationNote(nickname: String(repeating: "x", count: 300)).nickname?.count == MedicationNote.maximumNicknameLength)
        // An empty note removes what was stored.
        try await w.store.saveMedicationNote(MedicationNote(nickname: " "), for: metformin)
        #expect(try await w.store.medicationNotes().isEmpty)
    }
}
