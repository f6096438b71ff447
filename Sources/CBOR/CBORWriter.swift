/// Writes CBOR in preferred (shortest) form; what `dcc issue` signs.
public enum CBORWriter {
    /// The encoding of one item.
    public static func encode(_ value: CBORValue) -> [UInt8] {
        var out: [UInt8] = []
        write(value, into: &out)
        return out
    }

    /// Appends the head of an item: its major type and its argument (a length, a count or a
    /// value) in the shortest form, e.g. to write a byte string whose bytes follow.
    public static func head(_ major: UInt8, _ argument: UInt64, into out: inout [UInt8]) {
        let m = major << 5
        switch argument {
        case 0..<24: out.append(m | UInt8(argument))
        case 24...0xFF: out += [m | 24, UInt8(argument)]
        case 0x100...0xFFFF: out += [m | 25, UInt8(argument >> 8), UInt8(argument & 0xFF)]
        case 0x1_0000...0xFFFF_FFFF:
            out.append(m | 26)
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8((argument >> UInt64(shift)) & 0xFF)) }
        default:
            out.append(m | 27)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((argument >> UInt64(shift)) & 0xFF)) }
        }
    }

    static func write(_ value: CBORValue, into out: inout [UInt8]) {
        switch value {
        case .unsigned(let n): head(0, n, into: &out)
        case .negative(let n): head(1, n, into: &out)
        case .bytes(let b):
            head(2, UInt64(b.count), into: &out)
            out += b
        case .text(let s):
            let utf8 = Array(s.utf8)
            head(3, UInt64(utf8.count), into: &out)
            out += utf8
        case .array(let a):
            head(4, UInt64(a.count), into: &out)
            for e in a { write(e, into: &out) }
        case .map(let m):
            head(5, UInt64(m.count), into: &out)
            for e in m {
                write(e.key, into: &out)
                write(e.value, into: &out)
            }
        case .tagged(let tag, let item):
            head(6, tag, into: &out)
            write(item, into: &out)
        case .bool(let b): out.append(b ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        case .undefined: out.append(0xF7)
        case .simple(let v):
            if v < 24 { out.append(0xE0 | v) } else { out += [0xF8, v] }
        case .float(let d):
            if let f = Float(exactly: d) {
                out.append(0xFA)
                let bits = f.bitPattern
                for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8((bits >> UInt32(shift)) & 0xFF)) }
            } else {
                out.append(0xFB)
                let bits = d.bitPattern
                for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((bits >> UInt64(shift)) & 0xFF)) }
            }
        }
    }
}
