import CBOR
import Deflate
import Foundation

/// An EU Digital COVID Certificate decoded from its QR text, not yet verified.
///
/// The chain (eHN HCERT specification): `HC1:` → base45 → zlib → COSE_Sign1 → CWT claims →
/// the DCC payload under claim −260 / 1.
public struct DigitalCovidCertificate: Sendable, Hashable {
    /// The QR text as read, `HC1:` included.
    public let qrText: String
    /// The signed envelope.
    public let message: COSESign1
    /// The CWT claims, the payload among them.
    public let claims: CWTClaims

    /// The DCC payload (`ver`, `nam`, `dob`, and one of `v`, `t`, `r`).
    public var payload: CBORValue { claims.certificate }

    /// What the payload certifies; `nil` unless it holds exactly one group.
    public var kind: DCCKind? { DCCKind(payload: payload) }

    /// The prefix of the QR text.
    public static let prefix = "HC1:"

    /// The most bytes a certificate may inflate to; real ones are under 1 KB.
    public static let inflateLimit = 64 << 10

    /// Whether text is meant as a DCC: it starts with `HC1:` in any case.
    public static func namesPrefix(_ text: some Collection<UInt8>) -> Bool {
        let head = Array(text.prefix(4))
        return head.count == 4 && head[0] | 0x20 == UInt8(ascii: "h") && head[1] | 0x20 == UInt8(ascii: "c") && head[2] == UInt8(ascii: "1")
            && head[3] == UInt8(ascii: ":")
    }

    /// Decodes QR text, each step with its own error.
    public init(qrText: String) throws(DCCDecodingError) {
        var text = qrText
        // withUTF8 rethrows untyped errors; a Result carries the typed one out.
        let compressed = try text.withUTF8 { utf8 in Result { () throws(DCCDecodingError) in try Self.unprefix(UnsafeRawBufferPointer(utf8)) } }.get()
        try self.init(compressed: compressed, qrText: qrText)
    }

    /// The base45 text after the prefix.
    public static func base45Text(of qrText: String) throws(DCCDecodingError) -> Substring {
        guard qrText.utf8.starts(with: prefix.utf8) else { throw prefixError(qrText.utf8) }
        return qrText.dropFirst(prefix.count)
    }

    static func prefixError(_ text: some Collection<UInt8>) -> DCCDecodingError {
        .prefix(namesPrefix(text) ? "the prefix must be uppercase HC1:" : "the text does not start with HC1:")
    }

    /// The bytes base45 carries, after the prefix.
    static func unprefix(_ utf8: UnsafeRawBufferPointer) throws(DCCDecodingError) -> [UInt8] {
        guard utf8.starts(with: prefix.utf8) else { throw prefixError(utf8) }
        do throws(Base45Error) {
            return try Base45.decode(UnsafeRawBufferPointer(rebasing: utf8[4...]))
        } catch {
            throw .base45(error)
        }
    }

    /// Decodes the zlib-compressed COSE bytes (what base45 carries).
    public init(compressed: [UInt8], qrText: String = "") throws(DCCDecodingError) {
        guard compressed.count >= 2, compressed[0] & 0x0F == 8, (UInt16(compressed[0]) << 8 | UInt16(compressed[1])) % 31 == 0 else {
            throw .zlib("not zlib data (no zlib header)")
        }
        let cose: [UInt8]
        do { cose = try Inflate.zlib(compressed, limit: Self.inflateLimit) } catch { throw .zlib("\(error)") }
        try self.init(cose: cose, qrText: qrText)
    }

    /// Decodes a COSE_Sign1 and its claims.
    public init(cose: [UInt8], qrText: String = "") throws(DCCDecodingError) {
        let message: COSESign1
        do { message = try COSESign1(cbor: cose) } catch { throw .cose(error) }
        let claims: CWTClaims
        do { claims = try CWTClaims(cbor: message.payload) } catch { throw .claims(error) }
        self.qrText = qrText
        self.message = message
        self.claims = claims
    }
}

/// Why QR text is not a readable DCC: the step that failed.
public enum DCCDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No `HC1:` prefix.
    case prefix(String)
    /// Not base45.
    case base45(Base45Error)
    /// Not zlib, corrupt, or inflating past the cap.
    case zlib(String)
    /// Not a COSE_Sign1 message.
    case cose(COSEError)
    /// The payload is not the claims of an HCERT.
    case claims(DCCClaimsError)

    public var description: String {
        switch self {
        case .prefix(let s): return s
        case .base45(let e): return "\(e)"
        case .zlib(let s): return "zlib: \(s)"
        case .cose(let e): return "\(e)"
        case .claims(let e): return "\(e)"
        }
    }
}
