import Foundation
import QRCode
import SmartHealthCards

/// Draws a SMART Health Card as a QR code the way the spec asks: exactly two segments — byte
/// `shc:/` then numeric digits — at error correction L, never larger than it needs to be.
public enum CardQRCode {
    /// The segments of a card's `shc:/` text.
    ///
    /// The byte segment carries `shc:/` and, for the deprecated chunked form, its `C/N/` header.
    public static func segments(_ text: String) throws -> [QRSegment] {
        guard text.hasPrefix("shc:/") else { throw CardQRError.notCardText }
        let rest = text.dropFirst(5)
        let header = rest.firstIndex(where: { !$0.isNumber })
        let byteEnd: Substring.Index
        if let slash = header, rest[slash] == "/", let second = rest[rest.index(after: slash)...].firstIndex(of: "/") {
            byteEnd = rest.index(after: second)
        } else {
            byteEnd = rest.startIndex
        }
        return [QRSegment.byte("shc:/" + rest[..<byteEnd]), try QRSegment.numeric(String(rest[byteEnd...]))]
    }

    /// The QR symbol for a card's `shc:/` text (or any text, in the smallest segments, when `text` is not a card).
    public static func encode(_ text: String, level: QRErrorCorrectionLevel = .L) throws -> QRMatrix {
        if text.hasPrefix("shc:/") {
            return try QREncoder.encode(segments: segments(text), level: level)
        }
        return try QREncoder.encode(text: text, level: level)
    }

    /// The QR symbol for a card's compact JWS.
    public static func encode(jws: String, level: QRErrorCorrectionLevel = .L) throws -> QRMatrix {
        try encode(HealthCardQRText.encode(jws: jws), level: level)
    }
}

/// Why a card could not be drawn or read as a QR code.
public enum CardQRError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not `shc:/` text.
    case notCardText

    public var description: String {
        switch self {
        case .notCardText: return "not SMART Health Card text (it must start with shc:/)"
        }
    }
}
