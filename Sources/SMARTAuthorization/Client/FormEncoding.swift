/// `application/x-www-form-urlencoded` as OAuth uses it in query strings (RFC 6749 appendix B):
/// everything but the RFC 3986 unreserved characters percent-encoded on the way out, so a `+`
/// or `/` in a scope or state survives every server's decoder; `+` read back as a space.
enum FormEncoding {
    /// `name=value&…`, both sides encoded.
    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// One name or value, percent-encoded byte by byte.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%"
                out += String(byte >> 4, radix: 16, uppercase: true)
                out += String(byte & 0x0F, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// The pairs of a query (a leading `?` ignored), in order, decoded; nil when a `%` is not
    /// followed by two hex digits or the bytes are not UTF-8.
    static func decode(_ query: Substring) -> [(name: String, value: String)]? {
        var text = query
        if text.first == "?" { text = text.dropFirst() }
        var result: [(name: String, value: String)] = []
        for part in text.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = unescape(pieces[0]) else { return nil }
            let value = pieces.count > 1 ? unescape(pieces[1]) : ""
            guard let value else { return nil }
            result.append((name, value))
        }
        return result
    }

    /// One name or value decoded: `+` is a space, `%XX` a byte.
    static func unescape(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func isUnreserved(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2E || c == 0x5F || c == 0x7E
    }
}
