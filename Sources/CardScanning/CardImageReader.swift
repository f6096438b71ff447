import Foundation
import QRCode
import SmartHealthCards
import VerifiableRecords

/// The QR codes in pictures, and what a card's QR code must look like.
///
/// Turning the codes into cards is ``CardInputReader``'s: it assembles chunks across images and
/// reports an image without a card's code.
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

    /// Every QR code in a PNG or JPEG image (a phone's photo, upright by its EXIF orientation).
    public static func symbols(image data: Data, origin: String, png: PNGDecoder.Limits = .default, jpeg: JPEGDecoder.Limits = .default) throws -> [Symbol] {
        try QRReader.read(imageData: data, png: png, jpeg: jpeg).map { Symbol(decoded: $0, origin: origin) }
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
}
