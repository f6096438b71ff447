import FHIR
import Foundation

/// A JWS in compact serialization, split strictly: `b64url(header).b64url(payload).b64url(signature)`.
///
/// The signing input is kept as the exact ASCII that was transmitted; the header is never
/// re-serialized.
public struct CompactJWS: Sendable {
    /// The whole JWS text.
    public let text: String
    /// The decoded protected header.
    public let header: JWSHeader
    /// The decoded payload bytes (for SMART Health Cards, still raw-DEFLATE compressed).
    public let payload: [UInt8]
    /// The decoded signature bytes.
    public let signature: [UInt8]
    /// The length in bytes of `header.payload`, the signing input.
    public let signingInputLength: Int

    /// The exact bytes that were signed.
    public var signingInput: Data { Data(text.utf8.prefix(signingInputLength)) }

    /// Parses compact JWS text strictly.
    public init(_ text: String) throws(JWSError) {
        var copy = text
        let parsed = copy.withUTF8 { (bytes) -> Result<(JWSHeader, [UInt8], [UInt8], Int), JWSError> in
            Result { () throws(JWSError) in try CompactJWS.split(bytes) }
        }
        let (header, payload, signature, inputLength) = try parsed.get()
        self.text = text
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInputLength = inputLength
    }

    static func isBase64URL(_ c: UInt8) -> Bool {
        (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || (0x30...0x39).contains(c) || c == 0x2D || c == 0x5F
    }

    static func split(_ b: UnsafeBufferPointer<UInt8>) throws(JWSError) -> (JWSHeader, [UInt8], [UInt8], Int) {
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { throw .malformed("starts with a byte-order mark") }
        guard !b.isEmpty else { throw .malformed("empty") }
        var dots: [Int] = []
        var end = b.count
        for i in 0..<b.count {
            let c = b[i]
            if c == 0x2E {
                dots.append(i)
                if dots.count > 2 { throw .malformed("more than three parts") }
                continue
            }
            if !isBase64URL(c) {
                // Whatever follows a complete signature is "trailing"; anything else is malformed.
                if dots.count == 2, i > dots[1] + 1 {
                    end = i
                    break
                }
                if c == 0x3D { throw .malformed("base64url padding '=' at byte \(i)") }
                throw .malformed("byte \(i) is not base64url (\(CompactJWS.describe(c)))")
            }
        }
        guard dots.count == 2 else { throw .malformed("\(dots.count + 1) parts instead of three") }
        if end < b.count { throw .trailingCharacters(offset: end) }
        let h = UnsafeBufferPointer(rebasing: b[0..<dots[0]])
        let p = UnsafeBufferPointer(rebasing: b[(dots[0] + 1)..<dots[1]])
        let s = UnsafeBufferPointer(rebasing: b[(dots[1] + 1)..<end])
        guard !h.isEmpty, !p.isEmpty, !s.isEmpty else { throw .malformed("an empty part") }
        let headerBytes: [UInt8]
        let payload: [UInt8]
        let signature: [UInt8]
        do { headerBytes = try Base64URL.decode(h) } catch { throw .malformed("header: \(error)") }
        do { payload = try Base64URL.decode(p) } catch { throw .malformed("payload: \(error)") }
        do { signature = try Base64URL.decode(s) } catch { throw .malformed("signature: \(error)") }
        let header = try JWSHeader(bytes: headerBytes)
        return (header, payload, signature, dots[1])
    }

    static func describe(_ c: UInt8) -> String {
        switch c {
        case 0x20: return "space"
        case 0x0A: return "line feed"
        case 0x0D: return "carriage return"
        case 0x09: return "tab"
        case 0x21...0x7E: return "'\(Character(Unicode.Scalar(c)))'"
        default: return String(format: "0x%02X", c)
        }
    }
}

/// The protected header of a JWS.
public struct JWSHeader: Sendable {
    /// `alg`.
    public let algorithm: String?
    /// `zip`.
    public let compression: String?
    /// `kid`.
    public let keyID: String?
    /// The parsed header.
    public let tape: JSONTape

    /// The whole header object.
    public var json: JSONObject { tape.object(tape.root) ?? JSONObject() }

    /// Reads a header from its decoded JSON bytes.
    public init(bytes: [UInt8]) throws(JWSError) {
        let t: JSONTape
        do { t = try JSONTape(bytes, limits: JSONLimits(maxDocumentBytes: 16 << 10, maxDepth: 8, maxStringBytes: 8 << 10, maxContainerElements: 64)) } catch {
            throw .malformed("header is not JSON: \(error)")
        }
        guard t.kind(t.root) == .object else { throw .malformed("header is not a JSON object") }
        tape = t
        algorithm = t.member(t.root, "alg").flatMap(t.string)
        compression = t.member(t.root, "zip").flatMap(t.string)
        keyID = t.member(t.root, "kid").flatMap(t.string)
    }
}

/// Why a JWS could not be split.
public enum JWSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not three base64url parts.
    case malformed(String)
    /// Characters after the signature (a newline, a space, junk).
    case trailingCharacters(offset: Int)

    public var description: String {
        switch self {
        case .malformed(let m): return "malformed JWS: \(m)"
        case .trailingCharacters(let offset): return "characters after the JWS signature at byte \(offset)"
        }
    }
}
