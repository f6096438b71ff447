/// The 15-bit format information: error correction level and mask, BCH(15,5) protected
/// and XORed with 0x5412 so it is never all zeros.
struct FormatInformation: Sendable, Hashable {
    let level: QRErrorCorrectionLevel
    let mask: Int

    /// The masked 15-bit word, bit 14 first in reading order.
    var bits: Int {
        let data = level.formatBits << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        return (data << 10 | remainder) ^ 0x5412
    }

    /// All 32 valid masked words, indexed by `formatBits << 3 | mask`.
    static let validWords: [(word: Int, info: FormatInformation)] = (0..<32).map { data in
        let info = FormatInformation(level: QRErrorCorrectionLevel(formatBits: data >> 3), mask: data & 7)
        return (info.bits, info)
    }

    /// The valid format information nearest (in Hamming distance) to either read copy,
    /// or nil when the best match is more than 3 bits away — BCH(15,5) corrects 3.
    static func decode(_ first: Int, _ second: Int) -> (info: FormatInformation, distance: Int)? {
        var best: (info: FormatInformation, distance: Int)?
        for candidate in validWords {
            for read in [first, second] {
                let distance = (candidate.word ^ read).nonzeroBitCount
                if best == nil || distance < best!.distance { best = (candidate.info, distance) }
            }
        }
        guard let found = best, found.distance <= 3 else { return nil }
        return found
    }

    /// Module coordinates (x, y) of bit `i` (0 = least significant) in the copy around the top-left finder.
    static func primaryPosition(bit i: Int) -> (x: Int, y: Int) {
        switch i {
        case 0...5: return (8, i)
        case 6: return (8, 7)
        case 7: return (8, 8)
        case 8: return (7, 8)
        default: return (14 - i, 8)
        }
    }

    /// Module coordinates (x, y) of bit `i` in the copy split between the other two finders.
    static func secondaryPosition(bit i: Int, size: Int) -> (x: Int, y: Int) {
        i < 8 ? (size - 1 - i, 8) : (8, size - 15 + i)
    }
}
