import ArgumentParser
import Foundation
import HealthStoreCore

struct SamplesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "samples",
        abstract: "Quantity samples (blood glucose, blood pressure, body mass…), optionally signed by their device.",
        subcommands: [SamplesListCommand.self, SamplesAddCommand.self, SamplesVerifyCommand.self],
        defaultSubcommand: SamplesListCommand.self)
}

/// The filters `samples` and `samples verify` share.
struct SampleFilterOptions: ParsableArguments {
    @Option(help: "Quantity type: \(QuantityType.allValueStrings.joined(separator: ", ")).")
    var type: QuantityType?

    @Option(help: "Only samples saved by this source.")
    var source: String?

    @Option(help: "Start date from (FHIR date, ISO 8601 or epoch seconds).")
    var from: DateArgument?

    @Option(help: "Start date to, inclusive of the whole day/month/year given.")
    var to: DateArgument?

    /// The filters as a predicate.
    var predicate: SamplePredicate? {
        var predicates: [SamplePredicate] = []
        if let source { predicates.append(.source(source)) }
        if from != nil || to != nil { predicates.append(.startDate(from: from?.instant, to: to?.endOfPeriod)) }
        return predicates.isEmpty ? nil : .and(predicates)
    }
}

struct SamplesListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List samples (the default).")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var filter: SampleFilterOptions

    @Option(help: "The most samples to list.")
    var limit: Int?

    @Option(help: "Order by: start or added.")
    var sort: SampleSort.Key = .start

    @Flag(help: "Newest first.")
    var descending = false

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
    }

    func run() async throws {
        let store = try await storeOptions.open()
        let samples = try await store.samples(
            QuantitySampleQuery(type: filter.type, predicate: filter.predicate, limit: limit, sort: SampleSort(sort, ascending: !descending)))
        if json {
            JSONOutput.print(.array(samples.map(JSONOutput.sample)))
            return
        }
        var table = TextTable("start", "type", "value", "unit", "device", "source", "signature", "uuid")
        for stored in samples {
            let s = stored.sample
            let signature: String
            switch stored.signatureStatus {
            case .unsigned: signature = "-"
            case .present: signature = "present"
            case .malformed: signature = "malformed"
            }
            table.add(
                JSONOutput.iso8601(s.startDate), s.type.name, s.value, s.unit, s.device?.identifier ?? "", s.source.identifier, signature,
                s.uuid.uuidString)
        }
        print(table.rendered)
        print("\(samples.count) sample\(samples.count == 1 ? "" : "s")")
    }
}
