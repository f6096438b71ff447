import ArgumentParser
import FHIR
import Foundation
import PatientSummary

struct SummaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary",
        abstract: "Build the International Patient Summary (IPS 2.0.1) of the person's records.",
        discussion: """
            One FHIR document Bundle: the merged Patient and a Composition (LOINC 60591-5) with a \
            section per kind of fact — active problems, past illnesses, allergies, current \
            medications, immunizations, the latest results and vital signs per code, procedures, medical devices — \
            each with a readable narrative; required sections with nothing in them say why \
            (emptyReason). The same fact from two providers appears once, and every reference \
            resolves inside the Bundle. --out writes the Bundle to a file (and prints the sections); \
            --json prints the Bundle.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("Write the Bundle (FHIR JSON) to this file.", valueName: "FILE"))
    var out: String?

    @Flag(help: "Print the Bundle (FHIR JSON) instead of the sections.")
    var json = false

    func run() async throws {
        let store = try await storeOptions.open()
        let summary = try await PatientSummaryBuilder(store: store, now: store.clock.now).build()
        if let out {
            var files = OutputFiles()
            try files.add(summary.data, to: out)
            try files.commit()
        }
        if json {
            FileHandle.standardOutput.write(summary.data + Data("\n".utf8))
            return
        }
        var table = TextTable("section", "LOINC", "entries")
        for s in summary.sections { table.add(s.section.title, s.section.loinc, s.count == 0 ? "none (emptyReason)" : "\(s.count)") }
        print(table.rendered)
        if let out { print("written to \(out)") }
    }
}
