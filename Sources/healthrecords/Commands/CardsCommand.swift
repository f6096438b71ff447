import ArgumentParser
import Foundation
import HealthStoreCore
import HealthVocabulary

struct CardsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cards", abstract: "List stored verifiable clinical records: SMART Health Cards and EU Digital COVID Certificates.",
        discussion: """
            A card is listed only when it has every --type given (e.g. https://smarthealth.cards#immunization) \
            and is of a --source-type given (SMARTHealthCard, EUDigitalCOVIDCertificate; any without one). \
            --json writes each card as the app API hands it to an app (dataRepresentation is its JWS), \
            with what only the owner sees: addedDate, status and trusted or errors.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("type"), help: ArgumentHelp("A record type the card must have; repeatable.", valueName: "URI"))
    var types: [String] = []

    @Option(name: .customLong("source-type"), help: ArgumentHelp("SMARTHealthCard or EUDigitalCOVIDCertificate; repeatable.", valueName: "KIND"))
    var sourceTypes: [String] = []

    @Option(help: "Relevant date from (inclusive).")
    var from: String?

    @Option(help: "Relevant date to: a date includes its whole period, an instant is exclusive.")
    var to: String?

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        var p = OptionParameters()
        p.set(.recordTypes, types, flag: "--type")
        p.set(.relevantDateFrom, from, flag: "--from")
        p.set(.relevantDateTo, to, flag: "--to")
        p.set(.sourceTypes, sourceTypes, flag: "--source-type")
        let query = try p.parse { p throws(ParameterError) in try VerifiableRecordQuery(parameters: p) }
        let store = try await storeOptions.open()
        let cards = try await store.verifiableRecords(query)
        if json {
            JSONOutput.print(CardJSON.list(cards, for: .owner))
            return
        }
        var table = TextTable("id", "kind", "status", "relevant", "subject", "items", "issuer")
        for c in cards {
            table.add(
                String(c.identifier.prefix(12)), c.record.sourceType == .smartHealthCard ? "SHC" : "EU DCC", c.status.name, c.record.relevantDate.map { String(InstantText.string($0).prefix(10)) } ?? "-",
                c.record.subject.fullName, c.record.itemNames.joined(separator: "; "), c.record.issuerIdentifier)
        }
        print(table.rendered)
        print("\(cards.count) card\(cards.count == 1 ? "" : "s")")
    }
}
