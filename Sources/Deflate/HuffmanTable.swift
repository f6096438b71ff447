/// Decode-table entries and the builder that turns code lengths into tables, in the style of
/// libdeflate: one lookup of `tableBits` bits resolves every codeword that short; longer
/// codewords go through a pointer entry to a subtable.
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
        let lengthBase: [UInt32] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                    35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
        let lengthExtra: [UInt32] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                     3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
        var r = [UInt32](repeating: 0, count: 288)
        for s in 0..<256 { r[s] = literal | UInt32(s) << 8 }
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
    /// 96 words: 64 for partial length counts, 16 for counts, 16 for offsets.
    let work: UnsafeMutablePointer<Int>
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
        let counts = scratch.work + 64
        countLengths(lengths, symbolCount, into: counts, scratch: scratch.work)
        let offsets = scratch.work + 80

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
            table[0] = entry(results[symbol], length: 1)
            table[1] = HuffmanEntry.invalid(bits: 1)
            var end = 2
            while end < mainSize {
                (table + end).update(from: table, count: end)
                end <<= 1
            }
            return tableBits
        }

        // Sort the symbols by codeword length, then by symbol: a counting sort without branches
        // on the lengths, unused symbols going to a bucket after the used ones (so at most
        // `symbolCount` ≤ 288 slots are written). Runs of eight unused symbols are skipped.
        offsets[1] = 0
        for len in 1..<15 { offsets[len + 1] = offsets[len] + counts[len] }
        let totalCodes = offsets[15] + counts[15]
        offsets[0] = totalCodes
        let sorted = scratch.sorted
        var s = 0
        while s &+ 8 <= symbolCount {
            if UnsafeRawPointer(lengths + s).loadUnaligned(as: UInt64.self) != 0 {
                for j in s..<s &+ 8 {
                    let len = Int(lengths[j])
                    sorted[offsets[len]] = UInt16(truncatingIfNeeded: j)
                    offsets[len] &+= 1
                }
            }
            s &+= 8
        }
        while s < symbolCount {
            let len = Int(lengths[s])
            sorted[offsets[len]] = UInt16(truncatingIfNeeded: s)
            offsets[len] &+= 1
            s &+= 1
        }

        // Codewords no longer than the main table, length by length: each lands at its
        // bit-reversed index (the stream is LSB-first) in the first 2^len entries, and the filled
        // part doubles as the length grows, replicating shorter codewords. Each codeword is
        // computed from the canonical code directly, so the stores do not wait on each other.
        var next = 0
        var code: UInt32 = 0  // the next canonical codeword, most significant bit first
        var len = 1
        while counts[len] == 0 && len < tableBits { len += 1 }
        let firstLength = len
        var tableEnd = 1 << len
        while len <= tableBits {
            if len > firstLength {
                (table + tableEnd).update(from: table, count: tableEnd)
                tableEnd <<= 1
            }
            let n = counts[len]
            let shift = UInt32(16 - len)
            for k in 0..<n {
                let index = reverse16(code &+ UInt32(truncatingIfNeeded: k)) &>> shift
                table[Int(index)] = entry(results[Int(sorted[next &+ k])], length: len)
            }
            next &+= n
            code = (code &+ UInt32(truncatingIfNeeded: n)) << 1
            len += 1
        }
        if next == totalCodes { return tableBits }

        // Longer codewords: each distinct main-table prefix points to a subtable big enough for
        // every codeword sharing that prefix.
        tableEnd = mainSize
        var prefix = -1
        var subtableStart = 0
        let mainMask = UInt32(mainSize - 1)
        var count = counts[len]
        while next < totalCodes {
            while count == 0 {
                len += 1
                code <<= 1
                guard len <= 15 else { throw .overSubscribed }  // unreachable for complete codes
                count = counts[len]
            }
            let codeword = reverse16(code) &>> UInt32(16 - len)
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
            let subEntry = entry(results[Int(sorted[next])], length: subLength)
            var i = subtableStart + Int(codeword >> UInt32(tableBits))
            let stride = 1 << subLength
            repeat {
                table[i] = subEntry
                i += stride
            } while i < tableEnd
            next += 1
            code &+= 1
            count -= 1
        }
        return tableBits
    }

    /// A symbol's entry for a codeword of `length` bits: the length goes into bits 0–7, and for
    /// symbols other than literals into bits 8–11 too.
    @inline(__always)
    static func entry(_ result: UInt32, length: Int) -> UInt32 {
        let l = UInt32(truncatingIfNeeded: length)
        return result &+ (l | (l << 8) & ((result >> 31) &- 1))
    }

    /// Pairs literals in a main table: where an entry's literal codeword leaves room in the index
    /// bits for the whole codeword of a second literal, the entry yields both. Entries are
    /// visited from the top so the entry for the remaining bits (at a lower index) is still single.
    static func pairLiterals(_ table: UnsafeMutablePointer<UInt32>, tableBits: Int) {
        var i = 1 << tableBits
        while i > 0 {
            i -= 1
            let first = table[i]
            guard first & HuffmanEntry.literal != 0 else { continue }
            let firstLength = first & 0xFF
            let second = table[i &>> Int(firstLength)]
            guard second & HuffmanEntry.literal != 0, firstLength &+ (second & 0xFF) <= UInt32(tableBits) else { continue }
            table[i] = HuffmanEntry.literal | HuffmanEntry.twoLiterals | (second & 0xFF00) << 8 | (first & 0xFF00)
                | (firstLength &+ (second & 0xFF))
        }
    }

    /// Reverses the low 16 bits.
    @inline(__always)
    static func reverse16(_ x: UInt32) -> UInt32 {
        var v = x
        v = (v & 0x5555) << 1 | (v >> 1) & 0x5555
        v = (v & 0x3333) << 2 | (v >> 2) & 0x3333
        v = (v & 0x0F0F) << 4 | (v >> 4) & 0x0F0F
        v = (v & 0x00FF) << 8 | (v >> 8) & 0x00FF
        return v
    }

    /// Counts codeword lengths into `counts[0...15]` (`counts[0]` left 0). Four interleaved
    /// histograms, so runs of one length do not serialise on one counter in memory.
    @inline(__always)
    static func countLengths(
        _ lengths: UnsafePointer<UInt8>, _ symbolCount: Int, into counts: UnsafeMutablePointer<Int>,
        scratch h: UnsafeMutablePointer<Int>
    ) {
        h.update(repeating: 0, count: 64)
        var s = 0
        while s &+ 8 <= symbolCount {
            // Skip eight unused symbols at once.
            if UnsafeRawPointer(lengths + s).loadUnaligned(as: UInt64.self) != 0 {
                h[Int(lengths[s])] &+= 1
                h[16 &+ Int(lengths[s &+ 1])] &+= 1
                h[32 &+ Int(lengths[s &+ 2])] &+= 1
                h[48 &+ Int(lengths[s &+ 3])] &+= 1
                h[Int(lengths[s &+ 4])] &+= 1
                h[16 &+ Int(lengths[s &+ 5])] &+= 1
                h[32 &+ Int(lengths[s &+ 6])] &+= 1
                h[48 &+ Int(lengths[s &+ 7])] &+= 1
            }
            s &+= 8
        }
        while s < symbolCount {
            h[Int(lengths[s])] &+= 1
            s &+= 1
        }
        counts[0] = 0
        for len in 1..<16 { counts[len] = h[len] &+ h[16 &+ len] &+ h[32 &+ len] &+ h[48 &+ len] }
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
        let work = UnsafeMutablePointer<Int>.allocate(capacity: 96)
        let sorted = UnsafeMutablePointer<UInt16>.allocate(capacity: 288)
        defer { work.deallocate(); sorted.deallocate() }
        let scratch = BuilderScratch(work: work, sorted: sorted)
        let results = SymbolResults.shared
        do {
            literalLengthBits = try lengths.withUnsafeBufferPointer { l in
                try HuffmanTableBuilder.build(
                    table: literalLengthTable, capacity: 512, maxTableBits: 9, lengths: l.baseAddress!,
                    symbolCount: 288, results: results.literalLength, allowIncomplete: false, scratch: scratch)
            }
            distanceBits = try distanceLengths.withUnsafeBufferPointer { l in
                try HuffmanTableBuilder.build(
                    table: distanceTable, capacity: 32, maxTableBits: 5, lengths: l.baseAddress!,
                    symbolCount: 32, results: results.distance, allowIncomplete: false, scratch: scratch)
            }
        } catch {
            fatalError("the fixed Huffman codes are complete: \(error)")
        }
    }
}
