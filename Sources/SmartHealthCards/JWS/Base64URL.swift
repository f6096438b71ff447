import Foundation

/// Strict base64url (RFC 4648 §5) without padding, as JWS compact serialization requires.
///
/// Decoding rejects padding, whitespace, characters outside the alphabet, impossible lengths and
/// non-zero trailing bits, so one byte string has exactly one accepted text.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    /// Where decoding failed.
    public enum DecodingError: Error, Sendable, Equatable {
        /// A character outside the base64url alphabet (padding `=` included) at this offset.
        case invalidCharacter(offset: Int)
        /// A length no encoding produces (one character left over).
        case invalidLength
        /// The last character carries bits an encoder would have left zero.
        case nonCanonical
    }

    /// Decodes base64url text given as bytes.
    public static func decode(_ text: UnsafeBufferPointer<UInt8>) throws(DecodingError) -> [UInt8] {
        let n = text.count
        if n % 4 == 1 { throw .invalidLength }
        var out = [UInt8](repeating: 0, count: n / 4 * 3 + max(0, n % 4 - 1))
        let ok: Int? = table.withUnsafeBufferPointer { t in
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
        if let bad = ok {
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
        var out = [UInt8]()
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= input.count {
            let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            out += [alphabet[Int(v >> 18 & 63)], alphabet[Int(v >> 12 & 63)], alphabet[Int(v >> 6 & 63)], alphabet[Int(v & 63)]]
            i += 3
        }
        if input.count - i == 1 {
            let v = UInt32(input[i]) << 16
            out += [alphabet[Int(v >> 18 & 63)], alphabet[Int(v >> 12 & 63)]]
        } else if input.count - i == 2 {
            let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
            out += [alphabet[Int(v >> 18 & 63)], alphabet[Int(v >> 12 & 63)], alphabet[Int(v >> 6 & 63)]]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
