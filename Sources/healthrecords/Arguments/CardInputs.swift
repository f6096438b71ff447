import CardScanning
import Foundation
import SmartHealthCards

/// Reads the cards out of command-line inputs.
///
/// Every input accounts for itself: one in which nothing could be read (an empty file or
/// standard input, a note, a photo without a card's QR code, a card file listing no card)
/// becomes an `input.noCard` report, so `verify` never reports success for nothing verified.
enum CardInputs {
    static func read(_ inputs: [String]) throws -> [HealthCardInput.Card] {
        var cards: [HealthCardInput.Card] = []
        var chunks: [(String, String)] = []
        var symbols: [CardImageReader.Symbol] = []
        for input in inputs {
            let (data, origin) = try load(input)
            if CardImageReader.isPNG(data) {
                let found: [CardImageReader.Symbol]
                do { found = try CardImageReader.symbols(png: data, origin: origin) } catch {
                    throw CommandFailure.usage("\(input): \(error)")
                }
                // Kept together: the chunks of one card may be spread over several pictures.
                if let reason = CardImageReader.nothingRead(in: found) {
                    cards.append(HealthCardInput.Card(nothingReadIn: origin, because: reason))
                } else {
                    symbols += found
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
                    cards.append(qrCard([text], origin: origin))
                }
            case .jws:
                cards.append(HealthCardInput.Card(jws: String(decoding: data, as: UTF8.self), origin: origin))
            case .nothing(let reason):
                cards.append(HealthCardInput.Card(nothingReadIn: origin, because: reason))
            }
        }
        if !chunks.isEmpty {
            cards.append(qrCard(chunks.map(\.1), origin: chunks.map(\.0).joined(separator: " + ")))
        }
        cards += CardImageReader.cards(symbols)
        return cards
    }

    /// The bytes of one input and the name its report gives it: standard input for `-`, the
    /// text itself when it names the `shc:` scheme, else a file.
    static func load(_ input: String) throws -> (Data, String) {
        if input == "-" { return (FileHandle.standardInput.readDataToEndOfFile(), "stdin") }
        if HealthCardQRText.namesScheme(input.utf8) { return (Data(input.utf8), "argument") }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: input, isDirectory: &isDir), !isDir.boolValue else {
            throw CommandFailure.usage("\(input): no such file")
        }
        guard let attrs = try? FileManager.default.attributesOfItem(atPath: input), ((attrs[.size] as? NSNumber)?.intValue ?? 0) <= 16 << 20 else {
            throw CommandFailure.usage("\(input): larger than 16 MiB")
        }
        guard let data = FileManager.default.contents(atPath: input) else { throw CommandFailure.usage("\(input): cannot be read") }
        return (data, (input as NSString).lastPathComponent)
    }

    /// A card from QR text; text that does not decode becomes a card whose report carries the QR error.
    static func qrCard(_ texts: [String], origin: String) -> HealthCardInput.Card {
        do { return try HealthCardInput.card(qrTexts: texts, origin: origin) } catch {
            return HealthCardInput.Card(jws: "", origin: origin, warnings: [], fromQR: true, inputError: error.issue)
        }
    }
}
