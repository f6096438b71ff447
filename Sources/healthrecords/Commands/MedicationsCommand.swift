import ArgumentParser
import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

struct MedicationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "medications", abstract: "The person's medication list: one entry per medication, across providers.",
        discussion: """
            Orders, statements and dispenses of the same medication — the same RxNorm code, or the \
            same coded ingredients and strengths — are one entry, with its sources, first and latest \
            dates, status (by its latest record) and the records behind it. A record that matches \
            nothing by a code is an entry of its own: medications are never merged on a name.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let store = try await storeOptions.open()
        let list = try await store.medicationList()
        if json {
            JSONOutput.print(.array(list.entries.map(\.json)))
            return
        }
        var table = TextTable("medication", "status", "RxNorm", "sources", "first", "latest", "records")
        for e in list.entries {
            table.add(
                e.name, e.status.rawValue, e.rxNormCodes.joined(separator: " ").isEmpty ? "-" : e.rxNormCodes.joined(separator: " "), "\(e.sources.count)",
                e.firstDate.map { String($0.text.prefix(10)) } ?? "-", e.latestDate.map { String($0.text.prefix(10)) } ?? "-", "\(e.records.count)")
        }
        print(table.rendered)
        print("\(list.entries.count) medication\(list.entries.count == 1 ? "" : "s") from \(list.entries.reduce(0) { $0 + $1.records.count }) records")
    }
}
