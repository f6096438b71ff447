/// Decode-table entries and the builder that turns code lengths into tables, in the style of
/// libdeflate: one lookup of `tableBits` bits resolves every codeword that short; longer
/// codewords go through a pointer entry to a subtable.
///
/// An entry is a `UInt32`:
/// - bits 0–7: bits to consume in all (codeword length at this level plus extra bits), or for a
///   subtable pointer the main table's index bits;
/// - bits 8–11: the codeword length at this level (extra bits start above it), or for a
///   subtable pointer the subtable's index bits;
/// - bit 13: end of block; bit 14: subtable pointer; bit 15: exceptional (end of block,
///   subtable pointer, or a code no symbol may use);
/// - bits 16–30: the literal byte, length base, distance base, or subtable start;
/// - bit 31: literal.
enum HuffmanEntry {
    static let literal: UInt32 = 1 << 31
    static let exceptional: UInt32 = 1 << 15
    static let subtable: UInt32 = 1 << 14
    static let endOfBlock: UInt32 = 1 << 13
    /// A code that no symbol may use; consuming `bits` bits (so truncation is told apart).
    static func invalid(bits: UInt32) -> UInt32 { exceptional | bits << 8 | bits }

    /// Base values for literal/length symbols 0…287 (before the codeword length is added).
    static let literalLengthResults: [UInt32] = {
        let lengthBase: [UInt32] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                    35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
        let lengthExtra: [UInt32] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                     3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
        var r = [UInt32](repeating: 0, count: 288)
        for s in 0..<256 { r[s] = literal | UInt32(s) << 16 }
        r[256] = exceptional | endOfBlock
        for i in 0..<29 { r[257 + i] = lengthBase[i] << 16 | lengthExtra[i] }
        r[286] = exceptional
        r[287] = exceptional
        return r
    }()

    /// Base values for distance symbols 0…31.
    static let distanceResults: [UInt32] = {
        let base: [UInt32] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                              257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
                              8193, 12289, 16385, 24577]
        var r = [UInt32](repeating: exceptional, count: 32)
        for i in 0..<30 { r[i] = base[i] << 16 | UInt32(max(0, i / 2 - 1)) }
        return r
    }()

    /// Code-length symbols 0…18 decode to themselves.
    static let codeLengthResults: [UInt32] = (0..<19).map { UInt32($0) << 16 }
}

/// Table sizes. The "enough" figures are zlib's `enough` bounds for codes of at most 15 bits,
/// as libdeflate uses them: 288 symbols with an 11-bit main table, 32 with 8, 19 with 7.
enum TableSize {
    static let literalLengthBits = 11
    static let distanceBits = 8
    static let codeLengthBits = 7
    static let literalLengthEnough = 2342
    static let distanceEnough = 402
    static let codeLengthEnough = 128
}

/// What the builder found wrong with a set of lengths.
enum CodeLengthProblem: Error {
    case overSubscribed
    case incomplete
}

/// Scratch the table builder needs besides the table itself.
struct BuilderScratch {
    /// 16 counts, then 16 offsets.
    let counts: UnsafeMutablePointer<Int>
    /// Symbols sorted by codeword length (at most 288).
    let sorted: UnsafeMutablePointer<UInt16>
}

enum HuffmanTableBuilder {
    /// Fills `table` for the canonical Huffman code with the given codeword lengths.
    ///
    /// - Parameters:
    ///   - maxTableBits: the main table's index bits at most; fewer if no codeword is that long.
    ///   - allowIncomplete: whether a code with a single 1-bit codeword (or none) is accepted,
    ///     as zlib accepts for the literal/length and distance codes but not the code-length code.
    /// - Returns: the main table's index bits.
    static func build(
        table: UnsafeMutablePointer<UInt32>, capacity: Int, maxTableBits: Int,
        lengths: UnsafePointer<UInt8>, symbolCount: Int, results: UnsafePointer<UInt32>,
        allowIncomplete: Bool, scratch: BuilderScratch
    ) throws(CodeLengthProblem) -> Int {
        let counts = scratch.counts
        let offsets = scratch.counts + 16
        counts.update(repeating: 0, count: 16)
        for s in 0..<symbolCount { counts[Int(lengths[s])] &+= 1 }
        counts[0] = 0

        var left = 1
        var maxLength = 0
        for len in 1...15 {
            left = left << 1 - counts[len]
            if left < 0 { throw .overSubscribed }
            if counts[len] != 0 { maxLength = len }
        }
        let tableBits = max(1, min(maxTableBits, maxLength))
        let mainSize = 1 << tableBits

        if left > 0 {
            // zlib accepts an incomplete literal/length or distance code only if it has no
            // codeword, or a single 1-bit one; the rest of the code space is invalid.
            guard allowIncomplete, maxLength <= 1 else { throw .incomplete }
            if maxLength == 0 {
                table.update(repeating: HuffmanEntry.invalid(bits: 1), count: mainSize)
                return tableBits
            }
            var symbol = 0
            while lengths[symbol] == 0 { symbol += 1 }
            table[0] = results[symbol] &+ (1 << 8 | 1)
            table[1] = HuffmanEntry.invalid(bits: 1)
            var end = 2
            while end < mainSize {
                (table + end).update(from: table, count: end)
                end <<= 1
            }
            return tableBits
        }

        // Sort the symbols by codeword length, then by symbol.
        offsets[1] = 0
        for len in 1..<15 { offsets[len + 1] = offsets[len] + counts[len] }
        let sorted = scratch.sorted
        for s in 0..<symbolCount {
            let len = Int(lengths[s])
            if len != 0 {
                sorted[offsets[len]] = UInt16(truncatingIfNeeded: s)
                offsets[len] &+= 1
            }
        }

        // Codewords no longer than the main table: fill the first 2^len entries for each length,
        // doubling the filled part as the length grows. Codewords are kept bit-reversed, as they
        // appear in the LSB-first stream; appending zeros to a reversed codeword changes nothing.
        var next = 0
        var codeword: UInt32 = 0
        var len = 1
        var count = counts[1]
        while count == 0 { len += 1; count = counts[len] }
        var tableEnd = 1 << len
        while len <= tableBits {
            repeat {
                table[Int(codeword)] = results[Int(sorted[next])] &+ UInt32(len << 8 | len)
                next += 1
                if codeword == UInt32(tableEnd - 1) {
                    // The last codeword (all ones): replicate up to the main table's size.
                    while len < tableBits {
                        (table + tableEnd).update(from: table, count: tableEnd)
                        tableEnd <<= 1
                        len += 1
                    }
                    return tableBits
                }
                codeword = increment(codeword, width: len)
                count -= 1
            } while count > 0
            repeat {
                len += 1
                if len <= tableBits {
                    (table + tableEnd).update(from: table, count: tableEnd)
                    tableEnd <<= 1
                }
                count = len <= 15 ? counts[len] : 1
            } while count == 0
        }

        // Longer codewords: each distinct main-table prefix points to a subtable big enough for
        // every codeword sharing that prefix.
        tableEnd = mainSize
        var prefix = -1
        var subtableStart = 0
        let mainMask = UInt32(mainSize - 1)
        while true {
            if Int(codeword & mainMask) != prefix {
                prefix = Int(codeword & mainMask)
                subtableStart = tableEnd
                var subBits = len - tableBits
                var used = count
                while used < 1 << subBits {
                    subBits += 1
                    used = used << 1 + counts[tableBits + subBits]
                }
                tableEnd = subtableStart + 1 << subBits
                guard tableEnd <= capacity else { throw .overSubscribed }  // unreachable for valid codes
                table[prefix] = UInt32(subtableStart) << 16 | HuffmanEntry.exceptional | HuffmanEntry.subtable
                    | UInt32(subBits) << 8 | UInt32(tableBits)
            }
            let subLength = len - tableBits
            let entry = results[Int(sorted[next])] &+ UInt32(subLength << 8 | subLength)
            next += 1
            var i = subtableStart + Int(codeword >> UInt32(tableBits))
            let stride = 1 << subLength
            repeat {
                table[i] = entry
                i += stride
            } while i < tableEnd
            if codeword == UInt32(1 << len - 1) { return tableBits }
            codeword = increment(codeword, width: len)
            count -= 1
            while count == 0 {
                len += 1
                count = counts[len]
            }
        }
    }

    /// The next canonical codeword, bit-reversed: set the highest zero bit below `width` and
    /// clear the ones above it.
    @inline(__always)
    static func increment(_ codeword: UInt32, width: Int) -> UInt32 {
        let flipped = codeword ^ (UInt32(1) << UInt32(width) - 1)
        let bit = UInt32(1) << UInt32(31 - flipped.leadingZeroBitCount)
        return (codeword & (bit - 1)) | bit
    }
}

/// The fixed Huffman codes of RFC 1951 §3.2.6, built once.
struct FixedTables: @unchecked Sendable {
    /// The literal/length table (9 index bits, no subtables).
    let literalLength: UnsafeMutablePointer<UInt32>
    let literalLengthBits: Int
    /// The distance table (5 index bits).
    let distance: UnsafeMutablePointer<UInt32>
    let distanceBits: Int

    /// Built on first use; never freed.
    static let shared = FixedTables()

    private init() {
        var lengths = [UInt8](repeating: 8, count: 288)
        for s in 144..<256 { lengths[s] = 9 }
        for s in 256..<280 { lengths[s] = 7 }
        let distanceLengths = [UInt8](repeating: 5, count: 32)
        let literalLengthTable = UnsafeMutablePointer<UInt32>.allocate(capacity: 512)
        let distanceTable = UnsafeMutablePointer<UInt32>.allocate(capacity: 32)
        literalLength = literalLengthTable
        distance = distanceTable
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: 32)
        let sorted = UnsafeMutablePointer<UInt16>.allocate(capacity: 288)
        defer { counts.deallocate(); sorted.deallocate() }
        let scratch = BuilderScratch(counts: counts, sorted: sorted)
        do {
            literalLengthBits = try lengths.withUnsafeBufferPointer { l in
                try HuffmanEntry.literalLengthResults.withUnsafeBufferPointer { r in
                    try HuffmanTableBuilder.build(
                        table: literalLengthTable, capacity: 512, maxTableBits: 9, lengths: l.baseAddress!,
                        symbolCount: 288, results: r.baseAddress!, allowIncomplete: false, scratch: scratch)
                }
            }
            distanceBits = try distanceLengths.withUnsafeBufferPointer { l in
                try HuffmanEntry.distanceResults.withUnsafeBufferPointer { r in
                    try HuffmanTableBuilder.build(
                        table: distanceTable, capacity: 32, maxTableBits: 5, lengths: l.baseAddress!,
                        symbolCount: 32, results: r.baseAddress!, allowIncomplete: false, scratch: scratch)
                }
            }
        } catch {
            fatalError("the fixed Huffman codes are complete: \(error)")
        }
    }
}
