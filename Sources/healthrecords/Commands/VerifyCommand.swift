import ArgumentParser
import FHIR
import Foundation
import SmartHealthCards

struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify SMART Health Cards strictly, with a reason for every failed check.",
        discussion: """
            INPUT is a .smart-health-card file, a file of JWS text, files of shc:/ text (chunk files \
            given together form one card), PNG images of QR codes (the chunks of a card may be in one \
            image or several), a literal shc:/… text, or - for standard input. Exit status: \
            0 when every card is valid and trusted, 1 when any is not or an input held no card \
            (input.noCard), 2 for usage or I/O errors.
            """)

    @Argument(help: "Cards to verify.")
    var inputs: [String]

    @OptionGroup var verification: CardVerificationOptions

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("give at least one card (a file, shc:/ text, or -)") }
    }

    func run() async throws {
        let cards = try CardInputs.read(inputs)
        let verifier = try verification.verifier()
        let time = try verification.time()
        var reports: [CardVerification] = []
        for card in cards { reports.append(await verifier.verify(card, at: time)) }
        // Every input yields a report (one that held nothing fails with input.noCard); an empty
        // list is still never a success.
        let allGood = !reports.isEmpty && reports.allSatisfy { $0.isValid && $0.isTrusted }
        if json {
            JSONOutput.print(.object(JSONObject([
                JSONMember("valid", .bool(allGood)),
                JSONMember("cards", .array(reports.map(CardReportJSON.card))),
            ])))
        } else {
            print(reports.enumerated().map { CardReportText.render($0.element, number: $0.offset + 1) }.joined(separator: "\n\n"))
        }
        if !allGood { throw ExitCode(1) }
    }
}
