/// Decoding of JSON string escapes, shared by the tape and its validation.
enum JSONEscapes {
    /// Decodes the text between a string's quotes; the tape has already validated it.
    static func decode(_ p: UnsafeBufferPointer<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(p.count)
        var i = 0
        while i < p.count {
            let c = p[i]
            guard c == 0x5C else {
                out.append(c)
                i += 1
                continue
            }
            let e = p[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(p, i)
                i += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    let low = hex4(p, i + 2)
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                out.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
            default: out.append(e)  // " \ /
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Four hex digits at `offset`, or `nil` when they are not hex digits.
    static func hex4OrNil(_ p: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt32? {
        guard offset + 4 <= p.count else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = p[offset + k]
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    static func hex4(_ p: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt32 { hex4OrNil(p, offset)! }
}
