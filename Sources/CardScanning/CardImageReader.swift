import Foundation
import QRCode
import SmartHealthCards

/// Reads SMART Health Cards from pictures: every QR code in one or more images, checked for the
/// spec's shape, then assembled (the chunks of a multi-QR card may be in one image or several).
public enum CardImageReader {
    /// One QR code found in an image.
    public struct Symbol: Sendable {
        /// What the code says.
        public let decoded: DecodedQR
        /// The image it was found in.
        public let origin: String
    }

    /// Every QR code in a PNG image.
    public static func symbols(png data: Data, origin: String, limits: PNGDecoder.Limits = .default) throws -> [Symbol] {
        try QRReader.read(png: data, limits: limits).map { Symbol(decoded: $0, origin: origin) }
    }

    /// Findings about a card QR code's shape: `qr.segments` unless it is exactly byte `shc:/`
    /// then numeric, `qr.version` above version 22.
    public static func shapeFindings(_ qr: DecodedQR) -> [VerificationIssue] {
        var out: [VerificationIssue] = []
        let modes = qr.segments.map(\.mode)
        let twoSegments = modes.count == 2 && modes[0] == .byte && modes[1] == .numeric
            && (qr.segments[0].text?.hasPrefix("shc:/") ?? false)
        if !twoSegments {
            let shape = modes.map { "\($0)" }.joined(separator: " + ")
            out.append(VerificationIssue(.qrSegments, "the QR code has segments \(shape.isEmpty ? "(none)" : shape); a card needs exactly byte shc:/ then numeric"))
        }
        if qr.version.number > 22 {
            out.append(VerificationIssue(.qrVersion, "QR version \(qr.version.number) is larger than the 22 a card may use (40 mm at print size)"))
        }
        return out
    }

    /// The cards in the QR codes of one or more images: codes that do not name the `shc:` scheme
    /// are left out (see ``nothingRead(in:)``); chunked codes are assembled into one card; each
    /// other code is one card, a malformed header included (so it is reported as `qr.header`).
    public static func cards(_ symbols: [Symbol]) -> [HealthCardInput.Card] {
        var cards: [HealthCardInput.Card] = []
        var chunks: [Symbol] = []
        for s in symbols where HealthCardQRText.namesScheme(s.decoded.text.utf8) {
            if let chunk = try? HealthCardQRText.decode(s.decoded.text), (chunk.total ?? 1) > 1 {
                chunks.append(s)
                continue
            }
            let findings = shapeFindings(s.decoded)
            do {
                let card = try HealthCardInput.card(qrTexts: [s.decoded.text], origin: s.origin)
                cards.append(HealthCardInput.Card(jws: card.jws, origin: s.origin, warnings: findings + card.warnings, fromQR: true))
            } catch {
                cards.append(HealthCardInput.Card(jws: "", origin: s.origin, warnings: findings, fromQR: true, inputError: error.issue))
            }
        }
        if !chunks.isEmpty {
            let origin = Array(Set(chunks.map(\.origin))).sorted().joined(separator: " + ")
            let findings = chunks.flatMap { shapeFindings($0.decoded) }
            do {
                let card = try HealthCardInput.card(qrTexts: chunks.map(\.decoded.text), origin: origin)
                cards.append(HealthCardInput.Card(jws: card.jws, origin: origin, warnings: findings + card.warnings, fromQR: true))
            } catch {
                cards.append(HealthCardInput.Card(jws: "", origin: origin, warnings: findings, fromQR: true, inputError: error.issue))
            }
        }
        return cards
    }

    /// Why one image's QR codes hold no card, or `nil` when at least one names the `shc:` scheme.
    ///
    /// A photo with no readable code, or only codes of other kinds, verified nothing; callers
    /// report it (`input.noCard`) instead of leaving it out of the results.
    public static func nothingRead(in symbols: [Symbol]) -> NoCardReason? {
        if symbols.isEmpty { return .noQRCode }
        if symbols.contains(where: { HealthCardQRText.namesScheme($0.decoded.text.utf8) }) { return nil }
        return .noCardQRCode(count: symbols.count)
    }

    /// Whether bytes are a PNG image.
    public static func isPNG(_ data: Data) -> Bool {
        data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }
}
