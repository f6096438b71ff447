/// Huffman decode-table entries, and the per-symbol values the builder starts them from.
///
/// An entry is a `UInt32`. Bits 0–7 always hold the bits to consume in all (codeword length at
/// this level plus extra bits, or for a subtable pointer the main table's index bits).
///
/// Literal entries (bit 31 set): bits 8–15 the literal; with bit 30 set, the entry holds two
/// literals (two codewords that fit the main table's index together) and bits 16–23 hold the
/// second.
///
/// Other entries:
/// - bits 8–11: the codeword length at this level (extra bits start above it), or for a
///   subtable pointer the subtable's index bits;
/// - bit 13: end of block; bit 14: subtable pointer; bit 15: exceptional (end of block,
///   subtable pointer, or a code no symbol may use);
/// - bits 16–30: the length base, distance base, or subtable start.
enum HuffmanEntry {
    static let literal: UInt32 = 1 << 31
    static let twoLiterals: UInt32 = 1 << 30
    static let exceptional: UInt32 = 1 << 15
    static let subtable: UInt32 = 1 << 14
    static let endOfBlock: UInt32 = 1 << 13
    /// A code that no symbol may use; consuming `bits` bits (so truncation is told apart).
    static func invalid(bits: UInt32) -> UInt32 { exceptional | bits << 8 | bits }

    /// Base values for literal/length symbols 0…287 (before the codeword length is added).
    static let literalLengthResults: [UInt32] = {
        var r = [UInt32](repeating: 0, count: 288)
        for s in 0..<256 { r[s] = literal | UInt32(s) << 8 }
        r[256] = exceptional | endOfBlock
        for i in 0..<29 { r[257 + i] = UInt32(DeflateFormat.lengthBase[i]) << 16 | UInt32(DeflateFormat.lengthExtraBits[i]) }
        r[286] = exceptional
        r[287] = exceptional
        return r
    }()

    /// Base values for distance symbols 0…31.
    static let distanceResults: [UInt32] = {
        var r = [UInt32](repeating: exceptional, count: 32)
        for i in 0..<30 { r[i] = UInt32(DeflateFormat.distanceBase[i]) << 16 | UInt32(DeflateFormat.distanceExtraBits[i]) }
        return r
    }()

    /// Code-length entries: bits 16–23 the repeat count's base, bits 24–27 the length to
    /// write, bit 29 "repeat the previous length" (symbol 16), and extra bits in bits 0–7.
    /// Symbols 0…15 write themselves once; 16 repeats the previous length 3–6 times; 17 writes
    /// 3–10 zeros, 18 11–138.
    static let codeLengthResults: [UInt32] = (0..<19).map { s in
        switch s {
        case 16: return 3 << 16 | repeatPrevious | 2
        case 17: return 3 << 16 | 3
        case 18: return 11 << 16 | 7
        default: return 1 << 16 | UInt32(s) << 24
        }
    }
    static let repeatPrevious: UInt32 = 1 << 29
}

/// The symbol tables above as raw pointers, so building a table needs no array access.
struct SymbolResults: @unchecked Sendable {
    let literalLength: UnsafeMutablePointer<UInt32>
    let distance: UnsafeMutablePointer<UInt32>
    let codeLength: UnsafeMutablePointer<UInt32>

    /// Made on first use; never freed.
    static let shared = SymbolResults()

    private init() {
        literalLength = .allocate(capacity: 288)
        literalLength.initialize(from: HuffmanEntry.literalLengthResults, count: 288)
        distance = .allocate(capacity: 32)
        distance.initialize(from: HuffmanEntry.distanceResults, count: 32)
        codeLength = .allocate(capacity: 19)
        codeLength.initialize(from: HuffmanEntry.codeLengthResults, count: 19)
    }
}
