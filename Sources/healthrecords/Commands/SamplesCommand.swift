import ArgumentParser
import Foundation
import HealthStoreCore
import HealthVocabulary

struct SamplesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "samples",
        abstract: "Quantity samples (blood glucose, blood pressure, body mass…), optionally signed by their device.",
        subcommands: [SamplesListCommand.self, SamplesAddCommand.self, SamplesVerifyCommand.self],
        defaultSubcommand: SamplesListCommand.self)
}

/// The filters `samples` and `samples verify` share.
struct SampleFilterOptions: ParsableArguments {
    @Option(help: "Quantity type: \(QuantityType.allValueStrings.joined(separator: ", ")).", completion: .list(QuantityType.allValueStrings))
    var type: String?

    @Option(help: "Only samples saved by this source.")
    var source: String?

    @Option(help: "Start date from (inclusive; FHIR date, ISO 8601 or epoch seconds).")
    var from: String?

    @Option(help: "Start date to: a date includes its whole period, an instant is exclusive.")
    var to: String?

    @OptionGroup var added: AddedDateOptions

    /// The filters under the vocabulary's parameter names.
    var parameters: OptionParameters {
        var p = OptionParameters()
        p.set(.type, type)
        p.set(.source, source)
        p.set(.from, from)
        p.set(.to, to)
        added.add(to: &p)
        return p
    }
}

struct SamplesListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List samples (the default).")

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var filter: SampleFilterOptions

    @Option(help: "The most samples to list.")
    var limit: String?

    @Option(help: "Order by: start or added.", completion: .list(SampleSort.Key.allCases.map(\.rawValue)))
    var sort = SampleSort.Key.start.rawValue

    @Flag(help: "Newest first.")
    var descending = false

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        var p = filter.parameters
        p.set(.limit, limit)
        p.set(.sort, sort)
        var query = try p.parse { p throws(ParameterError) in try QuantitySampleQuery(parameters: p) }
        // `--descending` is the CLI's spelling of the API's `-` prefix.
        if descending { query.sort.ascending = false }
        let store = try await storeOptions.open()
        let samples = try await store.samples(query)
        if json {
            JSONOutput.print(SampleJSON.list(samples))
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
                InstantText.string(s.startDate), s.type.name, s.value, s.unit, s.device?.identifier ?? "", s.source.identifier, signature,
                s.uuid.uuidString)
        }
        print(table.rendered)
        print("\(samples.count) sample\(samples.count == 1 ? "" : "s")")
    }
}
