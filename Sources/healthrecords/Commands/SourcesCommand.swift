import ArgumentParser
import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

struct SourcesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sources", abstract: "List the sources records came from.")

    @OptionGroup var storeOptions: StoreOptions

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let store = try await storeOptions.open()
        var rows: [(RecordSource, Int)] = []
        for s in try await store.sources() {
            rows.append((s, try await store.count(RecordQuery(type: nil, predicate: .source(s.identifier)))))
        }
        if json {
            JSONOutput.print(.array(rows.map { s, n in
                .object(JSONObject(["identifier": .string(s.identifier), "name": .string(s.name), "records": JSONOutput.int(n)]))
            }))
            return
        }
        var table = TextTable("source", "name", "records")
        for (s, n) in rows { table.add(s.identifier, s.name, "\(n)") }
        print(table.rendered)
    }
}
