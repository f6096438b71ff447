/// Builds Huffman decode tables (see `HuffmanEntry` for the entry format) from code lengths, in
/// the style of libdeflate: one lookup of the main table's bits resolves every codeword that
/// short; longer codewords go through a pointer entry to a subtable.

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
