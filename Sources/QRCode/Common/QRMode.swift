/// A segment mode of ISO/IEC 18004 Table 2.
public enum QRMode: Sendable, Hashable, CustomStringConvertible {
    /// Digits 0–9, three per 10 bits.
    case numeric
    /// Digits, A–Z, space and `$%*+-./:`, two per 11 bits.
    case alphanumeric
    /// Arbitrary 8-bit bytes.
    case byte
    /// Shift JIS double-byte characters, 13 bits each.
    case kanji
    /// Extended Channel Interpretation: switches the character set of later byte segments.
    case eci

    /// The 4-bit mode indicator.
    var indicator: Int {
        switch self {
        case .numeric: return 0b0001
        case .alphanumeric: return 0b0010
        case .byte: return 0b0100
        case .kanji: return 0b1000
        case .eci: return 0b0111
        }
    }

    /// Width of the character count indicator, which grows with the version.
    func characterCountBits(version: QRVersion) -> Int {
        let band = version.number <= 9 ? 0 : (version.number <= 26 ? 1 : 2)
        switch self {
        case .numeric: return [10, 12, 14][band]
        case .alphanumeric: return [9, 11, 13][band]
        case .byte: return [8, 16, 16][band]
        case .kanji: return [8, 10, 12][band]
        case .eci: return 0
        }
    }

    /// For example "numeric".
    public var description: String {
        switch self {
        case .numeric: return "numeric"
        case .alphanumeric: return "alphanumeric"
        case .byte: return "byte"
        case .kanji: return "kanji"
        case .eci: return "ECI"
        }
    }

    /// The 45 characters of alphanumeric mode, in code value order.
    static let alphanumericCharset: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    /// Code value of an alphanumeric-mode byte, or nil when the byte is not in the set.
    static let alphanumericValue: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (i, c) in alphanumericCharset.enumerated() { table[Int(c)] = Int8(i) }
        return table
    }()
}
