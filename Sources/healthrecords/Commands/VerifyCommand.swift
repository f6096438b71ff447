import ArgumentParser
import FHIR
import CardScanning
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
            0 when every card is valid and trusted, 1 when any is not, 2 for usage or I/O errors.
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
        let allGood = reports.allSatisfy { $0.isValid && $0.isTrusted }
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

/// Reads the cards out of command-line inputs.
enum CardInputs {
    static func read(_ inputs: [String]) throws -> [HealthCardInput.Card] {
        var cards: [HealthCardInput.Card] = []
        var chunks: [(String, String)] = []
        var symbols: [CardImageReader.Symbol] = []
        for input in inputs {
            let data: Data
            let origin: String
            if input == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
                origin = "stdin"
            } else if input.hasPrefix("shc:/") {
                data = Data(input.utf8)
                origin = "argument"
            } else {
                var isDir: ObjCBool = false
                guard FileManager.default.fileExists(atPath: input, isDirectory: &isDir), !isDir.boolValue else {
                    throw CommandFailure.usage("\(input): no such file")
                }
                guard let attrs = try? FileManager.default.attributesOfItem(atPath: input), ((attrs[.size] as? NSNumber)?.intValue ?? 0) <= 16 << 20 else {
                    throw CommandFailure.usage("\(input): larger than 16 MiB")
                }
                guard let d = FileManager.default.contents(atPath: input) else { throw CommandFailure.usage("\(input): cannot be read") }
                data = d
                origin = (input as NSString).lastPathComponent
            }
            if CardImageReader.isPNG(data) {
                do { symbols += try CardImageReader.symbols(png: data, origin: origin) } catch {
                    throw CommandFailure.usage("\(input): \(error)")
                }
                continue
            }
            switch HealthCardInput.kind(of: data) {
            case .json:
                do { cards += try HealthCardInput.cards(json: data, origin: origin) } catch {
                    cards.append(HealthCardInput.Card(jws: "", origin: origin, inputError: error.issue))
                }
            case .qrText:
                let text = String(decoding: data, as: UTF8.self)
                if let chunk = try? HealthCardQRText.decode(text), chunk.total ?? 1 > 1 {
                    chunks.append((origin, text))
                } else {
                    cards.append(qrCard(text, origin: origin))
                }
            case .jws:
                cards.append(HealthCardInput.Card(jws: String(decoding: data, as: UTF8.self), origin: origin))
            }
        }
        if !chunks.isEmpty {
            cards.append(qrCard(chunks.map(\.1), origin: chunks.map(\.0).joined(separator: " + ")))
        }
        // QR codes in images: the chunks of one card may be spread over several pictures.
        cards += CardImageReader.cards(symbols)
        if !symbols.isEmpty, symbols.allSatisfy({ !$0.decoded.text.lowercased().hasPrefix("shc:/") }) {
            throw CommandFailure.failed("the images hold QR codes, but none is a SMART Health Card (shc:/)")
        }
        return cards
    }

    /// A card from QR text; text that does not decode becomes a card whose report carries the QR error.
    static func qrCard(_ texts: [String], origin: String) -> HealthCardInput.Card {
        do { return try HealthCardInput.card(qrTexts: texts, origin: origin) } catch {
            return HealthCardInput.Card(jws: "", origin: origin, warnings: [], fromQR: true, inputError: error.issue)
        }
    }

    static func qrCard(_ text: String, origin: String) -> HealthCardInput.Card { qrCard([text], origin: origin) }
}
