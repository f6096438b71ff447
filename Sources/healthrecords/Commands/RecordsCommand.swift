import ArgumentParser
import ClinicalRecords
import Foundation
import HealthStoreCore
import HealthVocabulary

struct RecordsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "records", abstract: "List clinical records, filtered like a HealthKit sample query.",
        discussion: """
            Dates are FHIR dates (2024, 2024-05, 2024-05-01), ISO 8601 date-times or seconds since \
            1970. A date without a time covers its whole year, month or day, so --to 2024-05-01 \
            includes 1 May; an instant --to is exclusive. --json writes each record as GET /records \
            does, its FHIR resource inline.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Clinical type: \(ClinicalType.allCases.map(\.name).joined(separator: ", ")).", completion: .list(ClinicalType.allCases.map(\.name)))
    var type: String?

    @Option(help: "FHIR resource type, e.g. Observation.")
    var resourceType: String?

    @Option(help: "Source identifier.")
    var source: String?

    @Option(help: "Clinical date from (inclusive).")
    var from: String?

    @Option(help: "Clinical date to: a date includes its whole period, an instant is exclusive.")
    var to: String?

    @OptionGroup var added: AddedDateOptions

    @Option(help: "The most records to list.")
    var limit: String?

    @Option(help: "Order by: added or clinical.", completion: .list(RecordSort.Key.allCases.map(\.rawValue)))
    var sort = RecordSort.Key.added.rawValue

    @Flag(help: "Newest first.")
    var descending = false

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    @Option(help: "Query through this app's grants (what the app would see).")
    var asApp: String?

    /// The options as a record query, read by the vocabulary the server uses.
    func query() throws(CommandFailure) -> RecordQuery {
        var p = OptionParameters()
        p.set(.type, type)
        p.set(.resourceType, resourceType)
        p.set(.source, source)
        p.set(.from, from)
        p.set(.to, to)
        added.add(to: &p)
        p.set(.limit, limit)
        p.set(.sort, sort)
        var query = try p.parse { p throws(ParameterError) in try RecordQuery(parameters: p) }
        // `--descending` is the CLI's spelling of the API's `-` prefix.
        if descending { query.sort.ascending = false }
        return query
    }

    func run() async throws {
        let query = try query()
        let store = try await storeOptions.open()
        let records: [ClinicalRecord]
        if let asApp {
            let view = try await consentWork { try await ConsentManager(store: store).view(appID: asApp) }
            records = try await view.records(query)
            try await store.flushAudit()
        } else {
            records = try await store.records(query)
        }
        if json {
            JSONOutput.print(RecordJSON.list(records))
            return
        }
        var table = TextTable("type", "date", "name", "resource", "source")
        for r in records {
            table.add(
                r.clinicalType.name, r.clinicalDate?.text ?? "", r.displayName,
                "\(r.fhirResource.resourceType.rawValue)/\(r.fhirResource.identifier)", r.source.identifier)
        }
        print(table.rendered)
        print("\(records.count) record\(records.count == 1 ? "" : "s")")
    }
}
