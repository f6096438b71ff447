import ArgumentParser
import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

struct RecordsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "records", abstract: "List clinical records, filtered like a HealthKit sample query.")

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "Clinical type: \(ClinicalType.allValueStrings.joined(separator: ", ")).")
    var type: ClinicalType?

    @Option(help: "FHIR resource type, e.g. Observation.")
    var resourceType: String?

    @Option(help: "Source identifier.")
    var source: String?

    @Option(help: "Clinical date from (FHIR date, ISO 8601 or epoch seconds).")
    var from: DateArgument?

    @Option(help: "Clinical date to, inclusive of the whole day/month/year given.")
    var to: DateArgument?

    @Option(help: "The most records to list.")
    var limit: Int?

    @Option(help: "Order by: added or clinical.")
    var sort: RecordSort.Key = .added

    @Flag(help: "Newest first.")
    var descending = false

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    @Option(help: "Query through this app's grants (what the app would see).")
    var asApp: String?

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
        if let resourceType, !FHIRResourceType(resourceType).isWellFormed { throw ValidationError("--resource-type is not a FHIR type name") }
    }

    func run() async throws {
        let store = try await storeOptions.open()
        var predicates: [RecordPredicate] = []
        if let resourceType { predicates.append(.fhirResourceType(FHIRResourceType(resourceType))) }
        if let source { predicates.append(.source(source)) }
        if from != nil || to != nil { predicates.append(.clinicalDate(from: from?.instant, to: to?.endOfPeriod)) }
        let query = RecordQuery(
            type: type, predicate: predicates.isEmpty ? nil : .and(predicates), limit: limit,
            sort: RecordSort(sort, ascending: !descending))
        let records: [ClinicalRecord]
        if let asApp {
            let view = try await consentWork { try await ConsentManager(store: store).view(appID: asApp) }
            records = try await view.records(query)
        } else {
            records = try await store.records(query)
        }
        if json {
            JSONOutput.print(.array(records.map(JSONOutput.record)))
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
