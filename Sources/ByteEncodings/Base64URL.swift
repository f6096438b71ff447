/// Strict base64url (RFC 4648 §5) without padding: the encoding of JWS compact serialization, JWK
/// members, SMART Health Card revocation ids, and the project's tokens and secrets.
///
/// Decoding rejects padding, whitespace, characters outside the alphabet, impossible lengths and
/// non-zero trailing bits, so one byte string has exactly one accepted text: a signed JWS cannot
/// be altered into another text that verifies, and a token compares equal only to itself.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's 6-bit value, or 0xFF for bytes outside the alphabet.
    private static let table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    /// Where decoding failed.
    public enum DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// A character outside the base64url alphabet (padding `=` included) at this offset.
        case invalidCharacter(offset: Int)
        /// A length no encoding produces (one character left over).
        case invalidLength
        /// The last character carries bits an encoder would have left zero.
        case nonCanonical

        public var description: String {
            switch self {
            case .invalidCharacter(let offset): return "byte \(offset) is not base64url"
            case .invalidLength: return "impossible base64url length"
            case .nonCanonical: return "not canonical base64url (non-zero trailing bits)"
            }
        }
    }

    /// Whether `byte` is one of the 64 characters of the alphabet, for callers that must find
    /// where base64url text ends before decoding it (a JWS part, a revocation id).
    @inlinable
    public static func isAlphabetByte(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x5F
    }

    /// Decodes base64url text given as UTF-8 bytes, as a JWS parser holds it.
    public static func decode(_ text: UnsafeBufferPointer<UInt8>) throws(DecodingError) -> [UInt8] {
        let n = text.count
        if n % 4 == 1 { throw .invalidLength }
        var out = [UInt8](repeating: 0, count: n / 4 * 3 + max(0, n % 4 - 1))
        // nil: decoded; -1: non-canonical; otherwise the start of the group holding a bad character.
        let failure: Int? = table.withUnsafeBufferPointer { t in
            out.withUnsafeMutableBufferPointer { o in
                var i = 0
                var j = 0
                while i + 4 <= n {
                    let a = t[Int(text[i])], b = t[Int(text[i + 1])], c = t[Int(text[i + 2])], d = t[Int(text[i + 3])]
                    if (a | b | c | d) & 0xC0 != 0 { return i }
                    o[j] = a << 2 | b >> 4
                    o[j + 1] = b << 4 | c >> 2
                    o[j + 2] = c << 6 | d
                    i += 4
                    j += 3
                }
                let rest = n - i
                if rest >= 2 {
                    let a = t[Int(text[i])], b = t[Int(text[i + 1])]
                    if (a | b) & 0xC0 != 0 { return i }
                    o[j] = a << 2 | b >> 4
                    if rest == 3 {
                        let c = t[Int(text[i + 2])]
                        if c & 0xC0 != 0 { return i }
                        o[j + 1] = b << 4 | c >> 2
                        if c & 0x03 != 0 { return -1 }
                    } else if b & 0x0F != 0 {
                        return -1
                    }
                }
                return nil
            }
        }
        if let bad = failure {
            if bad == -1 { throw .nonCanonical }
            // Find the exact offending character for the report.
            var k = bad
            while k < n, table[Int(text[k])] != 0xFF { k += 1 }
            throw .invalidCharacter(offset: k)
        }
        return out
    }

    /// Decodes base64url text.
    public static func decode(_ text: String) throws(DecodingError) -> [UInt8] {
        var copy = text
        let result = copy.withUTF8 { p in Result { () throws(DecodingError) in try decode(p) } }
        return try result.get()
    }

    /// Encodes bytes as base64url without padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        let count = input.count / 3 * 4 + [0, 2, 3][input.count % 3]
        return String(unsafeUninitializedCapacity: count) { out in
            alphabet.withUnsafeBufferPointer { a in
                var i = 0
                var j = 0
                while i + 3 <= input.count {
                    let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                    out[j] = a[Int(v >> 18 & 63)]
                    out[j + 1] = a[Int(v >> 12 & 63)]
                    out[j + 2] = a[Int(v >> 6 & 63)]
                    out[j + 3] = a[Int(v & 63)]
                    i += 3
                    j += 4
                }
                let rest = input.count - i
                if rest > 0 {
                    let v = UInt32(input[i]) << 16 | (rest == 2 ? UInt32(input[i + 1]) << 8 : 0)
                    out[j] = a[Int(v >> 18 & 63)]
                    out[j + 1] = a[Int(v >> 12 & 63)]
                    if rest == 2 { out[j + 2] = a[Int(v >> 6 & 63)] }
                }
            }
            return count
        }
    }
}
