import SmartHealthCards
import VerifiableRecords

/// Why an input (or the QR chunks read together) yielded no card.
///
/// Every kind of bad input has its case, so callers decide what to do by kind rather than by
/// message; ``code`` maps each to the verifier's stable codes (docs/verification-codes.md).
public enum CardInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No bytes, or only whitespace.
    case empty
    /// Text that is neither a card file (JSON), `shc:` QR text, nor shaped like a JWS.
    case notACard
    /// More bytes than one card input may have; nothing of it was read.
    case tooLarge(limit: Int)
    /// JSON that is not a card container, or one that lists no card.
    case container(HealthCardContainerError)
    /// A container listing more cards than one input may carry.
    case tooManyCards(count: Int, limit: Int)
    /// PNG bytes that do not decode as an image.
    case unreadableImage(String)
    /// An image in which no QR code could be read.
    case noQRCode
    /// An image whose QR codes are none of them `shc:` text.
    case noCardQRCode(count: Int)
    /// `shc:` text whose header is not exactly `shc:/` (`SHC:/…`, `shc:56…`, leading whitespace).
    case qrHeader(String)
    /// `shc:/` text whose digits do not decode (odd count, a pair above 77, a non-digit).
    case qrDigits(String)
    /// The chunks of a multi-QR card do not fit together: missing, duplicate or out of range,
    /// disagreeing on their number, mixed with unchunked text, or oversized.
    case chunkNumbering(String)

    /// Sorts a QR text error by its code.
    init(qrText error: VerificationIssueError) {
        switch error.issue.code {
        case .qrHeader: self = .qrHeader(error.issue.message)
        case .qrNumeric: self = .qrDigits(error.issue.message)
        default: self = .chunkNumbering(error.issue.message)
        }
    }

    /// The verifier's code: `input.noCard` when nothing could be read, `jws.malformed` for an
    /// unreadable container, and the QR codes for QR text.
    public var code: VerificationCode {
        switch self {
        case .empty, .notACard, .tooLarge, .unreadableImage, .noQRCode, .noCardQRCode: return .inputNoCard
        case .container(.noCredentials): return .inputNoCard
        case .container, .tooManyCards: return .jwsMalformed
        case .qrHeader: return .qrHeader
        case .qrDigits: return .qrNumeric
        case .chunkNumbering: return .qrChunks
        }
    }

    /// The error as a failed check.
    public var issue: VerificationIssue { VerificationIssue(code, description) }

    public var description: String {
        switch self {
        case .empty: return "the input is empty"
        case .notACard: return "the text is neither a card file, shc:/ QR text nor a JWS"
        case .tooLarge(let limit): return "the input is larger than the \(limit) bytes a card input may be"
        case .container(let e): return e.description
        case .tooManyCards(let n, let limit): return "the file lists \(n) cards; at most \(limit) are read from one input"
        case .unreadableImage(let reason): return "the image cannot be read: \(reason)"
        case .noQRCode: return "no QR code could be read in the image"
        case .noCardQRCode(let n): return "the image holds \(n == 1 ? "a QR code" : "\(n) QR codes"), but no SMART Health Card (shc:/)"
        case .qrHeader(let m), .qrDigits(let m), .chunkNumbering(let m): return m
        }
    }
}
