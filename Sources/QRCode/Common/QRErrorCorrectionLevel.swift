/// The four error correction levels of ISO/IEC 18004, from least to most redundant.
public enum QRErrorCorrectionLevel: Int, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// Recovers about 7% of codewords.
    case L = 0
    /// Recovers about 15% of codewords.
    case M = 1
    /// Recovers about 25% of codewords.
    case Q = 2
    /// Recovers about 30% of codewords.
    case H = 3

    /// The two bits this level has in the format information (note: not in L, M, Q, H order).
    var formatBits: Int {
        switch self {
        case .L: return 1
        case .M: return 0
        case .Q: return 3
        case .H: return 2
        }
    }

    /// The level whose format information bits are `bits` (0...3).
    init(formatBits bits: Int) {
        switch bits & 3 {
        case 1: self = .L
        case 0: self = .M
        case 3: self = .Q
        default: self = .H
        }
    }

    /// Orders levels from L (least redundancy) to H (most).
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The level's letter, e.g. "L".
    public var description: String {
        switch self {
        case .L: return "L"
        case .M: return "M"
        case .Q: return "Q"
        case .H: return "H"
        }
    }
}
