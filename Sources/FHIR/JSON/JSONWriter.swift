/// Writes ``JSONValue``s as minified JSON text, numbers exactly as they were read.
///
/// Strings are escaped the way ECMAScript's `JSON.stringify` escapes them (only `"`, `\` and
/// control characters), so a bundle we minimize matches the bytes the SMART Health Cards
/// reference tools produce.
public enum JSONWriter {
    /// The minified UTF-8 bytes of a value.
    public static func minified(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        write(value, to: &out)
        return out
    }

    /// The minified text of a value.
    public static func minifiedString(_ value: JSONValue) -> String {
        String(decoding: minified(value), as: UTF8.self)
    }

    /// Appends the minified bytes of a value.
    public static func write(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.text.utf8)
        case .string(let s): writeString(s, to: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (k, v) in a.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                write(v, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (k, m) in o.members.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                writeString(m.key, to: &out)
                out.append(UInt8(ascii: ":"))
                write(m.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends a JSON string literal.
    public static func writeString(_ s: String, to out: inout [UInt8]) {
        var s = s
        s.withUTF8 { bytes in
            out.append(UInt8(ascii: "\""))
            // Most strings (ids, URLs, codes) need no escape: copy those whole.
            if !bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
                out.append(contentsOf: bytes)
                out.append(UInt8(ascii: "\""))
                return
            }
            for c in bytes {
                switch c {
                case 0x22: out.append(0x5C); out.append(0x22)
                case 0x5C: out.append(0x5C); out.append(0x5C)
                case 0x08: out.append(0x5C); out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(0x5C); out.append(UInt8(ascii: "f"))
                case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
                case 0..<0x20:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(c >> 4)], hex[Int(c & 0xF)]])
                default: out.append(c)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
    }
}

extension JSONWriter {
    /// Indented text of a value (two spaces per level), for people reading command output.
    public static func pretty(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        writePretty(value, indent: 0, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func writePretty(_ value: JSONValue, indent: Int, to out: inout [UInt8]) {
        func newline(_ level: Int) {
            out.append(0x0A)
            out.append(contentsOf: repeatElement(0x20, count: level * 2))
        }
        switch value {
        case .array(let a) where !a.isEmpty:
            out.append(UInt8(ascii: "["))
            for (k, v) in a.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                writePretty(v, indent: indent + 1, to: &out)
            }
            newline(indent)
            out.append(UInt8(ascii: "]"))
        case .object(let o) where !o.isEmpty:
            out.append(UInt8(ascii: "{"))
            for (k, m) in o.members.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                newline(indent + 1)
                writeString(m.key, to: &out)
                out.append(contentsOf: ": ".utf8)
                writePretty(m.value, indent: indent + 1, to: &out)
            }
            newline(indent)
            out.append(UInt8(ascii: "}"))
        default:
            write(value, to: &out)
        }
    }
}
