import Foundation
import QRCode
import SmartHealthCards
import VerifiableRecords

/// Reads SMART Health Cards and EU DCCs out of whatever people hand over: PNG images and JPEG
/// photos of QR codes, JSON containers (`.smart-health-card` files, `Parameters` responses), `shc:/` QR text
/// (the chunks of a multi-QR card in any inputs, in any order), bare compact JWS, and `HC1:`
/// text. A DCC is handed on as its QR text, marked as such: checking it is the DCC verifier's.
///
/// It is the one reader `verify`, `import` and the server share, so one input gets one answer
/// everywhere. Its policy: every input accounts for itself — each yields its cards or a
/// ``CardInputError`` naming what is wrong; none is dropped and none throws. Inputs are bounded
/// before they are decoded (``Limits``). Only what was found is kept between inputs (JWS and QR
/// texts, never the bytes), so many large inputs can be read one after another.
public struct CardInputReader: Sendable {
    /// How much one input may hold.
    public struct Limits: Sendable, Hashable {
        /// The most bytes of one input (a card file is a few KiB; a photo a few MiB).
        public var maxInputBytes: Int
        /// The most cards one container may list.
        public var maxCardsPerInput: Int
        /// Bounds for decoding PNG images.
        public var png: PNGDecoder.Limits
        /// Bounds for decoding JPEG photos.
        public var jpeg: JPEGDecoder.Limits = .default

        /// Makes limits; by default 16 MiB per input, 1000 cards per container, and the PNG decoder's default bounds.
        public init(maxInputBytes: Int = 16 << 20, maxCardsPerInput: Int = 1000, png: PNGDecoder.Limits = .default) {
            self.maxInputBytes = maxInputBytes
            self.maxCardsPerInput = maxCardsPerInput
            self.png = png
        }

        /// The limits every caller uses unless it has a reason not to.
        public static let `default` = Limits()

        /// The limits for images people upload to a server: 14 Mpx and 8192 pixels a side (a
        /// 12 Mpx phone photo fits), and 30 MiB of decompressed PNG data (a 1440 × 3200 phone
        /// screenshot in RGBA takes 18 MiB, 4K in RGB 24 MiB). With ``QRReader/maxWorkingPixels``
        /// every buffer a decode takes stays under the 32 MiB above which glibc maps memory for
        /// one allocation and unmaps it after, so a server reading image after image reuses the
        /// same memory; one image costs at most about 75 MiB (docs/security.md), where the
        /// defaults allow 512 MiB of decompressed data.
        public static let uploads: Limits = {
            var limits = Limits(png: PNGDecoder.Limits(maxWidth: 8192, maxHeight: 8192, maxPixels: 14_000_000, maxDecompressedBytes: 30 << 20))
            limits.jpeg = JPEGDecoder.Limits(maxPixels: 14_000_000, maxDimension: 8192)
            return limits
        }()
    }

    /// A chunk of a multi-QR card, kept until every input has been read.
    private struct PendingChunk: Sendable {
        let input: Int
        let name: String
        let chunk: HealthCardQRText.Chunk
        let findings: [VerificationIssue]
    }

    /// The bounds each input is checked against before it is decoded.
    public let limits: Limits
    /// How many inputs have been read.
    public private(set) var inputCount = 0
    private var found: [CardReading] = []
    private var chunks: [PendingChunk] = []

    /// Makes a reader with nothing read yet.
    public init(limits: Limits = .default) {
        self.limits = limits
    }

    /// Reads inputs at once.
    public static func read(_ inputs: [(data: Data, name: String)], limits: Limits = .default) -> [CardReading] {
        var reader = CardInputReader(limits: limits)
        for input in inputs { reader.add(input.data, name: input.name) }
        return reader.readings
    }

    /// Reads one input now; `name` (a file name, `stdin`…) is what reports call it.
    public mutating func add(_ data: Data, name: String) {
        let input = inputCount
        inputCount += 1
        guard data.count <= limits.maxInputBytes else { return fail(input, name, .tooLarge(limit: limits.maxInputBytes)) }
        switch CardInputKind(of: data) {
        case .png, .jpeg: readImage(data, input: input, name: name)
        case .json: readContainer(data, input: input, name: name)
        case .qrText: readQRText(String(decoding: data, as: UTF8.self), input: input, name: name, findings: [])
        case .jws: found.append(CardReading(inputs: [input], origin: name, fromQR: false, warnings: [], result: .success(String(decoding: data, as: UTF8.self))))
        case .dccText:
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            found.append(CardReading(format: .euDigitalCOVIDCertificate, inputs: [input], origin: name, fromQR: false, warnings: [], result: .success(text)))
        case .empty: fail(input, name, .empty)
        case .unknown: fail(input, name, .notACard)
        }
    }

    /// Every card the inputs held and every reason one held none, in the order of the inputs.
    ///
    /// The chunks of a multi-QR card, from however many inputs, are one card, placed at the
    /// input of its first chunk.
    public var readings: [CardReading] {
        guard !chunks.isEmpty else { return found }
        var inputs: [Int] = []
        var names: [String] = []
        for c in chunks where !inputs.contains(c.input) {
            inputs.append(c.input)
            if !names.contains(c.name) { names.append(c.name) }
        }
        let findings = chunks.flatMap(\.findings)
        let result: Result<String, CardInputError>
        var warnings = findings
        do {
            let (jws, assembled) = try HealthCardQRText.assemble(chunks.map(\.chunk))
            result = .success(jws)
            warnings += assembled
        } catch {
            result = .failure(CardInputError(qrText: error))
        }
        let card = CardReading(inputs: inputs, origin: names.joined(separator: " + "), fromQR: true, warnings: warnings, result: result)
        var all = found
        all.insert(card, at: all.firstIndex { $0.inputs[0] > inputs[0] } ?? all.endIndex)
        return all
    }

    private mutating func fail(_ input: Int, _ name: String, _ error: CardInputError, fromQR: Bool = false, warnings: [VerificationIssue] = []) {
        found.append(CardReading(inputs: [input], origin: name, fromQR: fromQR, warnings: warnings, result: .failure(error)))
    }

    private mutating func readContainer(_ data: Data, input: Int, name: String) {
        let texts: [String]
        do { texts = try HealthCardContainer.jwsTexts(json: data) } catch { return fail(input, name, .container(error)) }
        guard texts.count <= limits.maxCardsPerInput else {
            return fail(input, name, .tooManyCards(count: texts.count, limit: limits.maxCardsPerInput))
        }
        for (k, jws) in texts.enumerated() {
            found.append(CardReading(inputs: [input], origin: "\(name)#\(k)", fromQR: false, warnings: [], result: .success(jws)))
        }
    }

    /// Every `shc:` and `HC1:` QR code in an image; codes of other kinds (a menu, a website) are passed over.
    private mutating func readImage(_ data: Data, input: Int, name: String) {
        let symbols: [DecodedQR]
        do { symbols = try QRReader.read(imageData: data, png: limits.png, jpeg: limits.jpeg) } catch { return fail(input, name, .unreadableImage("\(error)")) }
        let cards = symbols.filter { HealthCardQRText.namesScheme($0.text.utf8) }
        let certificates = symbols.filter { CardInputKind.namesDCC($0.text.utf8) }
        guard !symbols.isEmpty else { return fail(input, name, .noQRCode) }
        guard !cards.isEmpty || !certificates.isEmpty else { return fail(input, name, .noCardQRCode(count: symbols.count)) }
        for qr in certificates {
            found.append(CardReading(format: .euDigitalCOVIDCertificate, inputs: [input], origin: name, fromQR: true, warnings: [], result: .success(qr.text)))
        }
        for qr in cards {
            readQRText(qr.text, input: input, name: name, findings: CardImageReader.shapeFindings(qr))
        }
    }

    /// One QR text, decoded once: a chunk of a multi-QR card waits for the others; anything else
    /// is a card (or its error) now.
    private mutating func readQRText(_ text: String, input: Int, name: String, findings: [VerificationIssue]) {
        let chunk: HealthCardQRText.Chunk
        do { chunk = try HealthCardQRText.decode(text) } catch {
            return fail(input, name, CardInputError(qrText: error), fromQR: true, warnings: findings)
        }
        if let total = chunk.total, total > 1 {
            chunks.append(PendingChunk(input: input, name: name, chunk: chunk, findings: findings))
            return
        }
        do {
            let (jws, warnings) = try HealthCardQRText.assemble([chunk])
            found.append(CardReading(inputs: [input], origin: name, fromQR: true, warnings: findings + warnings, result: .success(jws)))
        } catch {
            fail(input, name, CardInputError(qrText: error), fromQR: true, warnings: findings)
        }
    }
}
