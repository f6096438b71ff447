import ClinicalRecords
import FHIR
import Foundation

/// What the person adds to an entry of their medication list: a nickname, and whether it is
/// archived (HealthKit's `HKUserAnnotatedMedication`).
public struct MedicationNote: Sendable, Hashable {
    /// The person's own name for it ("my heart pill"); `nil` for none.
    public var nickname: String?
    /// Archived entries are set aside: listed apart, and still readable by the apps they were picked for.
    public var archived: Bool

    /// The longest nickname kept, in characters.
    public static let maximumNicknameLength = 100

    /// Makes a note; a blank nickname is none, and one longer than
    /// ``maximumNicknameLength`` is cut.
    public init(nickname: String? = nil, archived: Bool = false) {
        let trimmed = nickname?.trimmingCharacters(in: .whitespacesAndNewlines)
        self.nickname = trimmed.flatMap { $0.isEmpty ? nil : String($0.prefix(Self.maximumNicknameLength)) }
        self.archived = archived
    }

    /// Whether it says nothing (then nothing is stored).
    public var isEmpty: Bool { nickname == nil && !archived }
}

/// Where the notes on medication entries are kept: sealed, keyed by a keyed digest of the
/// entry's id (the id is a hash of an RxNorm code, easily reversed).
public protocol MedicationNoteStorage: Sendable {
    /// Every note, by ``ClinicalRecords/MedicationEntry/id``.
    func medicationNotes() async throws -> [String: MedicationNote]
    /// Stores the note of an entry; an empty note removes it.
    func saveMedicationNote(_ note: MedicationNote, for entryID: String) async throws
}

/// An entry of the medication list with the person's note on it.
public struct AnnotatedMedication: Sendable, Hashable {
    /// The medication, consolidated from its records.
    public let entry: MedicationEntry
    /// The person's nickname and archived flag (empty when none).
    public let note: MedicationNote

    /// Pairs an entry with its note.
    public init(entry: MedicationEntry, note: MedicationNote) {
        self.entry = entry
        self.note = note
    }

    /// ``MedicationEntry/json`` with `nickname` (or null) and `archived`.
    public var json: JSONValue {
        guard case .object(var o) = entry.json else { return entry.json }
        o.members.append(JSONMember("nickname", note.nickname.map(JSONValue.string) ?? .null))
        o.members.append(JSONMember("archived", .bool(note.archived)))
        return .object(o)
    }
}

extension RecordReading where Self: MedicationNoteStorage {
    /// The medication list with the person's notes, archived entries last.
    public func annotatedMedications() async throws -> [AnnotatedMedication] {
        let notes = try await medicationNotes()
        let all = try await medicationList().entries.map { AnnotatedMedication(entry: $0, note: notes[$0.id] ?? MedicationNote()) }
        return all.filter { !$0.note.archived } + all.filter(\.note.archived)
    }
}
