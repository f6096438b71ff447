import ArgumentParser
import DigitalCovidCertificates
import FHIR
import Foundation
import SmartHealthCards

struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify SMART Health Cards and EU Digital COVID Certificates strictly, with a reason for every failed check.",
        discussion: """
            INPUT is a .smart-health-card file, a file of JWS text, files of shc:/ text (chunk files \
            given together form one card), PNG images or JPEG photos of QR codes (the chunks of a card may be in one \
            image or several), a literal shc:/… or HC1:… text, a file of HC1: text, or - for standard \
            input. EU DCCs are checked against the Document Signer Certificates given with --dsc. \
            Exit status: 0 when every card and certificate is valid and trusted, 1 when any is not or \
            an input held none (input.noCard), 2 for usage or I/O errors.
            """)

    @Argument(help: "Cards to verify.")
    var inputs: [String]

    @OptionGroup var verification: CardVerificationOptions

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("give at least one card (a file, shc:/ text, or -)") }
    }

    /// One input's report: a card's or a certificate's.
    enum Report {
        case card(CardVerification)
        case certificate(DCCVerification)

        var isGood: Bool {
            switch self {
            case .card(let r): return r.isValid && r.isTrusted
            case .certificate(let r): return r.isValid && r.isTrusted
            }
        }
    }

    func run() async throws {
        let readings = try CardInputs.read(inputs)
        let verifier = try verification.verifier()
        let dccVerifier = try verification.dccVerifier()
        let time = verification.time()
        var reports: [Report] = []
        for reading in readings {
            switch (reading.format, reading.result) {
            case (.euDigitalCOVIDCertificate, .success(let text)):
                reports.append(.certificate(dccVerifier.verify(text, origin: reading.origin, at: time)))
            default:
                reports.append(.card(await verifier.verify(reading.card, at: time)))
            }
        }
        // Every input yields a report (one that held nothing fails with input.noCard); an empty
        // list is still never a success.
        let allGood = !reports.isEmpty && reports.allSatisfy(\.isGood)
        if json {
            JSONOutput.print(.object(JSONObject([
                JSONMember("valid", .bool(allGood)),
                JSONMember("cards", .array(reports.map { report in
                    switch report {
                    case .card(let r): return CardReportJSON.card(r)
                    case .certificate(let r): return DCCReportJSON.report(r)
                    }
                })),
            ])))
        } else {
            print(reports.enumerated().map { k, report in
                switch report {
                case .card(let r): return CardReportText.render(r, number: k + 1)
                case .certificate(let r): return DCCReportText.render(r, number: k + 1)
                }
            }.joined(separator: "\n\n"))
        }
        if !allGood { throw ExitCode(1) }
    }
}
