import ByteEncodings
import Foundation
import SmartHealthCards

/// What kind of card input some bytes are, judged by their first bytes.
///
/// The one place inputs are sorted: `verify`, `import` and anything else that takes cards ask
/// ``CardInputReader``, which asks this.
public enum CardInputKind: Sendable, Hashable {
    /// A PNG image (of QR codes).
    case png
    /// A JPEG image: a photo of QR codes.
    case jpeg
    /// A JSON container: a `.smart-health-card` file or a `Parameters` response.
    case json
    /// Text naming the `shc:` scheme, in any case (a bad header is reported as a QR error).
    case qrText
    /// Text shaped like a compact JWS (it may still be malformed).
    case jws
    /// Text naming an EU DCC: `HC1:` in any case, or base45 text with a wrong or missing prefix
    /// (both reported by the DCC check as `dcc.prefix`).
    case dccText
    /// No bytes, or only whitespace.
    case empty
    /// Anything else: nothing a card could be read from.
    case unknown

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Sorts bytes by their start: the PNG signature, else the first text after any whitespace
    /// or byte-order mark.
    ///
    /// Only text shaped like a JWS (base64url characters up to a `.`, or the `eyJ` every JSON
    /// header starts with) is read as one, so a stray note or an empty file is reported as
    /// holding no card rather than as a broken signature.
    public init(of data: some Collection<UInt8>) {
        if data.starts(with: Self.pngSignature) { self = .png; return }
        if data.starts(with: [0xFF, 0xD8, 0xFF]) { self = .jpeg; return }
        let text = data.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        guard let first = text.first else { self = .empty; return }
        if first == UInt8(ascii: "{") { self = .json; return }
        if HealthCardQRText.namesScheme(text) { self = .qrText; return }
        if Self.namesDCC(text) || Self.looksLikeDCC(text) { self = .dccText; return }
        if text.starts(with: "eyJ".utf8) { self = .jws; return }
        if let end = text.firstIndex(where: { !Base64URL.isAlphabetByte($0) }), end != text.startIndex, text[end] == UInt8(ascii: ".") {
            self = .jws
            return
        }
        self = .unknown
    }

    /// Whether text starts with the EU DCC prefix `HC1:`, in any case.
    public static func namesDCC(_ text: some Collection<UInt8>) -> Bool {
        let head = Array(text.prefix(4))
        return head.count == 4 && head[0] | 0x20 == UInt8(ascii: "h") && head[1] | 0x20 == UInt8(ascii: "c") && head[2] == UInt8(ascii: "1")
            && head[3] == UInt8(ascii: ":")
    }

    /// Whether text is shaped like a DCC's QR text with a wrong or missing prefix: two letters,
    /// a digit and a colon (`HC2:`), or none, before at least 40 characters of base45 (uppercase
    /// letters, digits and ` $%*+-./:`) up to the end or a line break. Such text is handed to
    /// the DCC check, which names the prefix as what is wrong, rather than reported as no card.
    public static func looksLikeDCC(_ text: some Collection<UInt8>) -> Bool {
        var body = Array(text.prefix(4096))
        if body.count >= 4, body[0] | 0x20 >= UInt8(ascii: "a"), body[0] | 0x20 <= UInt8(ascii: "z"), body[1] | 0x20 >= UInt8(ascii: "a"),
            body[1] | 0x20 <= UInt8(ascii: "z"), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(body[2]), body[3] == UInt8(ascii: ":")
        {
            body.removeFirst(4)
        }
        let line = body.prefix { $0 != 0x0A && $0 != 0x0D }
        return line.count >= 40 && line.allSatisfy { base45Bytes.contains($0) }
    }

    private static let base45Bytes = Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    /// Whether inputs of this kind are cards; `.json` is left out, because JSON that is not
    /// named a card file is more likely FHIR.
    public var isCardContent: Bool {
        switch self {
        case .png, .jpeg, .qrText, .jws, .dccText: return true
        case .json, .empty, .unknown: return false
        }
    }
}
