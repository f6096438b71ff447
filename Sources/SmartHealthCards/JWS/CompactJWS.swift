import ByteEncodings
import FHIR
import Foundation
#if canImport(Glibc)
import Glibc
#endif

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

    static func split(_ b: UnsafeBufferPointer<UInt8>) throws(JWSError) -> (JWSHeader, [UInt8], [UInt8], Int) {
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { throw .malformed("starts with a byte-order mark") }
        guard !b.isEmpty, let base = b.baseAddress else { throw .malformed("empty") }
        // Find the two dots; base64url decoding then checks every other byte, so each byte is read once.
        func dot(after start: Int) -> Int? {
            guard start < b.count, let hit = memchr(base + start, 0x2E, b.count - start) else { return nil }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
        }
        guard let d1 = dot(after: 0) else { throw .malformed("1 part instead of three") }
        guard let d2 = dot(after: d1 + 1) else { throw .malformed("2 parts instead of three") }
        let h = UnsafeBufferPointer(rebasing: b[0..<d1])
        let p = UnsafeBufferPointer(rebasing: b[(d1 + 1)..<d2])
        var s = UnsafeBufferPointer(rebasing: b[(d2 + 1)...])
        guard !h.isEmpty, !p.isEmpty, !s.isEmpty else { throw .malformed("an empty part") }
        // Whatever follows a complete signature is "trailing": a newline, a space, junk.
        if let bad = s.firstIndex(where: { !Base64URL.isAlphabetByte($0) }) {
            let offset = d2 + 1 + bad
            if s[bad] == 0x2E { throw .malformed("more than three parts") }
            if bad == 0 || s[bad] == 0x3D { throw .malformed(s[bad] == 0x3D ? "base64url padding '=' at byte \(offset)" : "byte \(offset) is not base64url (\(describe(s[bad])))") }
            if s[bad...].contains(0x2E) { throw .malformed("more than three parts") }
            s = UnsafeBufferPointer(rebasing: s[..<bad])
            // A signature that decodes is complete: report the rest as trailing.
            if (try? Base64URL.decode(s)) != nil { throw .trailingCharacters(offset: offset) }
            throw .malformed("byte \(offset) is not base64url (\(describe(b[offset])))")
        }
        let headerBytes: [UInt8]
        let payload: [UInt8]
        let signature: [UInt8]
        do { headerBytes = try Base64URL.decode(h) } catch { throw .malformed(describe(error, part: "header", at: 0, h)) }
        do { payload = try Base64URL.decode(p) } catch { throw .malformed(describe(error, part: "payload", at: d1 + 1, p)) }
        do { signature = try Base64URL.decode(s) } catch { throw .malformed(describe(error, part: "signature", at: d2 + 1, s)) }
        let header = try JWSHeader(bytes: headerBytes)
        return (header, payload, signature, d2)
    }

    /// Why a part did not decode, naming the byte in the whole JWS.
    static func describe(_ error: Base64URL.DecodingError, part: String, at start: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> String {
        switch error {
        case .invalidCharacter(let k):
            let c = bytes[k]
            return c == 0x3D ? "base64url padding '=' at byte \(start + k)" : "byte \(start + k) is not base64url (\(describe(c)))"
        case .invalidLength: return "the \(part) has an impossible base64url length"
        case .nonCanonical: return "the \(part) is not canonical base64url (non-zero trailing bits)"
        }
    }

    static func describe(_ c: UInt8) -> String {
        switch c {
        case 0x20: return "space"
        case 0x0A: return "line feed"
        case 0x0D: return "carriage return"
        case 0x09: return "tab"
        case 0x21...0x7E: return "'\(Character(Unicode.Scalar(c)))'"
        default: return "0x" + Hex.encode([c], uppercase: true)
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
    /// The parsed header, for members beyond `alg`, `zip` and `kid`.
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
