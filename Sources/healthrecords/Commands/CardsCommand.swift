import ArgumentParser
import FHIR
import Foundation
import HealthStoreCore
import SmartHealthCards

struct CardsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cards", abstract: "List stored SMART Health Cards (verifiable clinical records).",
        discussion: "A card is listed only when it has every --type given (e.g. https://smarthealth.cards#immunization).")

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .customLong("type"), help: ArgumentHelp("A record type the card must have; repeatable.", valueName: "URI"))
    var types: [String] = []

    @Option(help: "Relevant date from (FHIR date, ISO 8601 or epoch seconds).")
    var from: DateArgument?

    @Option(help: "Relevant date to, inclusive of the whole day/month/year given.")
    var to: DateArgument?

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func run() async throws {
        let store = try await storeOptions.open()
        var interval: DateInterval? = nil
        if from != nil || to != nil {
            let start = from?.instant ?? .distantPast
            let end = to?.endOfPeriod ?? .distantFuture
            guard start <= end else { throw CommandFailure.usage("--from is after --to") }
            interval = DateInterval(start: start, end: end)
        }
        let cards = try await store.verifiableRecords(VerifiableRecordQuery(recordTypes: types, relevantDate: interval))
        if json {
            JSONOutput.print(.array(cards.map(Self.json)))
            return
        }
        var table = TextTable("id", "status", "relevant", "subject", "items", "issuer")
        for c in cards {
            table.add(
                String(c.identifier.prefix(12)), c.status.name, c.record.relevantDate.map { String(JSONOutput.iso8601($0).prefix(10)) } ?? "-",
                c.record.subject.fullName, c.record.itemNames.joined(separator: "; "), c.record.issuerIdentifier)
        }
        print(table.rendered)
        print("\(cards.count) card\(cards.count == 1 ? "" : "s")")
    }

    static func json(_ c: StoredVerifiableRecord) -> JSONValue {
        var status = [JSONMember("status", .string(c.status.name))]
        switch c.status {
        case .verified(let trusted): status.append(JSONMember("trusted", .bool(trusted)))
        case .unverified(let codes): status.append(JSONMember("errors", .array(codes.map(JSONValue.string))))
        }
        return .object(JSONObject([
            JSONMember("id", .string(c.identifier)),
            JSONMember("issuer", .string(c.record.issuerIdentifier)),
            JSONMember("subject", .object(JSONObject([
                "fullName": .string(c.record.subject.fullName), "dateOfBirth": JSONOutput.string(c.record.subject.dateOfBirth?.text),
            ]))),
            JSONMember("recordTypes", .array(c.record.recordTypes.map(JSONValue.string))),
            JSONMember("itemNames", .array(c.record.itemNames.map(JSONValue.string))),
            JSONMember("issuedDate", JSONOutput.date(c.record.issuedDate)),
            JSONMember("relevantDate", JSONOutput.date(c.record.relevantDate)),
            JSONMember("expirationDate", JSONOutput.date(c.record.expirationDate)),
            JSONMember("addedDate", JSONOutput.date(c.addedDate)),
        ] + status + [JSONMember("jws", .string(c.record.jws))]))
    }
}
