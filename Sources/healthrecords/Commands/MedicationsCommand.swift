import ArgumentParser
import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

struct MedicationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "medications", abstract: "The person's medication list: one entry per medication, across providers; nicknames and archiving.",
        discussion: """
            Orders, statements, dispenses and administrations of the same medication — the same \
            RxNorm code, or the same coded ingredients and strengths — are one entry, with its \
            sources, first and latest dates, status (by its latest record) and the records behind \
            it. A record that matches nothing by a code is an entry of its own: medications are \
            never merged on a name.
            """,
        subcommands: [MedicationsListCommand.self, MedicationsNicknameCommand.self, MedicationsArchiveCommand.self, MedicationsRestoreCommand.self],
        defaultSubcommand: MedicationsListCommand.self)
}

struct MedicationsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the medications (archived ones last).")

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let store = try await storeOptions.open()
        let list = try await store.annotatedMedications()
        if json {
            JSONOutput.print(.array(list.map(\.json)))
            return
        }
        var table = TextTable("id", "medication", "status", "RxNorm", "sources", "first", "latest", "records")
        for m in list {
            let e = m.entry
            var name = m.note.nickname.map { "\($0) (\(e.name))" } ?? e.name
            if m.note.archived { name += " [archived]" }
            table.add(
                e.id, name, e.status.rawValue, e.rxNormCodes.joined(separator: " ").isEmpty ? "-" : e.rxNormCodes.joined(separator: " "), "\(e.sources.count)",
                e.firstDate.map { String($0.text.prefix(10)) } ?? "-", e.latestDate.map { String($0.text.prefix(10)) } ?? "-", "\(e.records.count)")
        }
        print(table.rendered)
        print("\(list.count) medication\(list.count == 1 ? "" : "s") from \(list.reduce(0) { $0 + $1.entry.records.count }) records")
    }
}

/// The entry an id names, with its note; a usage error for an id not on the list.
private func annotated(_ store: any HealthStore, _ id: String) async throws -> AnnotatedMedication {
    guard let found = try await store.annotatedMedications().first(where: { $0.entry.id == id }) else {
        throw CommandFailure.failed("no medication with id \(id) (see `healthrecords medications`)")
    }
    return found
}

/// Archives or restores an entry, keeping its nickname.
private func setArchived(_ archived: Bool, _ id: String, _ storeOptions: StoreOptions) async throws {
    let store = try await storeOptions.open()
    let m = try await annotated(store, id)
    try await store.saveMedicationNote(MedicationNote(nickname: m.note.nickname, archived: archived), for: id)
    print("\(archived ? "archived" : "restored") \(m.entry.name)")
}

struct MedicationsNicknameCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "nickname", abstract: "Give a medication your own name (empty to remove it).")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The medication's id (from `medications`).")
    var id: String

    @Argument(help: "The nickname (up to 100 characters).")
    var nickname: String

    func run() async throws {
        let store = try await storeOptions.open()
        let m = try await annotated(store, id)
        let note = MedicationNote(nickname: nickname, archived: m.note.archived)
        try await store.saveMedicationNote(note, for: id)
        print(note.nickname.map { "\(m.entry.name) is now called \($0)" } ?? "\(m.entry.name) has no nickname")
    }
}

struct MedicationsArchiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "archive", abstract: "Set a medication aside: listed apart, its records kept.")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The medication's id (from `medications`).")
    var id: String

    func run() async throws { try await setArchived(true, id, storeOptions) }
}

struct MedicationsRestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "restore", abstract: "Bring an archived medication back to the list.")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The medication's id (from `medications`).")
    var id: String

    func run() async throws { try await setArchived(false, id, storeOptions) }
}
