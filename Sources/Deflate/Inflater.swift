/// The DEFLATE decoder: block headers, stored blocks, and the table-driven Huffman loop.
///
/// Memory safety without per-symbol traps: the Huffman loop runs while the next output byte is
/// within the output's room, which has `OutputBuffer.slack` bytes of memory beyond it (enough
/// for one iteration: three literal entries and a 258-byte match written in 8-byte words), and
/// refills a word at a time only while 8 input bytes remain (then byte by byte, then with
/// counted zero bytes). When it leaves the room the output grows, or stops at the limit. Table
/// lookups are masked to the table's size and distances are checked against the output so far.
struct Inflater {
    var bits: BitReader
    var out: OutputBuffer
    /// The next output byte.
    var next: UnsafeMutablePointer<UInt8>
    private var tables: DynamicTables?

    /// Input bytes left, per main-table entry, from which literal pairs are worth building.
    static let pairingThreshold = 1

    /// Decodes into `output`, `physicalCapacity` bytes including `OutputBuffer.slack`.
    init(input: UnsafePointer<UInt8>, count: Int, output: UnsafeMutablePointer<UInt8>, physicalCapacity: Int, limit: Int) {
        bits = BitReader(input, count: count)
        out = OutputBuffer(borrowing: output, physicalCapacity: physicalCapacity, limit: limit)
        next = output
    }

    /// Bytes written so far.
    var produced: Int { next - out.start }

    /// Frees the dynamic tables and any output memory of our own.
    mutating func release() {
        tables?.deallocate()
        tables = nil
        out.release()
    }

    /// A corruption error, or `.truncated` if bits past the end of the input were consumed on
    /// the way to it (the input ran out first).
    private func corrupt(_ reason: InflateError.Reason) -> InflateError {
        bits.consumedPastEnd ? .truncated : .corrupt(reason)
    }

    /// Inflates blocks up to and including the final one. Returns the input bytes consumed
    /// (the last one possibly in part).
    mutating func run() throws(InflateError) -> Int {
        while true {
            try bits.ensure(3)
            let header = bits.take(3)
            if bits.consumedPastEnd { throw .truncated }
            switch header >> 1 {
            case 0:
                try storedBlock()
            case 1:
                let fixed = FixedTables.shared
                try huffmanBlock(
                    literalLength: fixed.literalLength, literalLengthBits: fixed.literalLengthBits,
                    distance: fixed.distance, distanceBits: fixed.distanceBits)
            case 2:
                let t: DynamicTables
                if let existing = tables { t = existing } else { t = DynamicTables(); tables = t }
                let (literalLengthBits, distanceBits) = try dynamicHeader(t)
                try huffmanBlock(
                    literalLength: t.literalLength, literalLengthBits: literalLengthBits,
                    distance: t.distance, distanceBits: distanceBits)
            default:
                throw corrupt(.invalidBlockType)
            }
            if header & 1 != 0 { break }
        }
        if bits.consumedPastEnd { throw .truncated }
        return (bits.consumedBits + 7) >> 3
    }

    // MARK: Stored blocks

    private mutating func storedBlock() throws(InflateError) {
        try bits.alignToByte()
        guard bits.available >= 4 else { throw .truncated }
        let p = bits.next
        let length = UInt16(p[0]) | UInt16(p[1]) << 8
        let complement = UInt16(p[2]) | UInt16(p[3]) << 8
        guard length == ~complement else { throw .corrupt(.storedLengthMismatch(length: length, complement: complement)) }
        bits.next += 4
        let n = Int(length)
        guard bits.available >= n else { throw .truncated }
        if out.end - next < n { try out.grow(next: &next, needed: n) }
        next.update(from: bits.next, count: n)
        next += n
        bits.next += n
    }

    // MARK: Dynamic block headers

    /// Reads a dynamic block's code lengths and builds its tables; returns their index bits.
    private mutating func dynamicHeader(_ t: DynamicTables) throws(InflateError) -> (Int, Int) {
        let results = SymbolResults.shared
        try bits.ensure(14)
        let literalLengthCount = Int(bits.take(5)) + 257
        let distanceCount = Int(bits.take(5)) + 1
        let codeLengthCount = Int(bits.take(4)) + 4
        if bits.consumedPastEnd { throw .truncated }
        guard literalLengthCount <= 286, distanceCount <= 30 else {
            throw .corrupt(.tooManySymbols(literalLengthCodes: literalLengthCount, distanceCodes: distanceCount))
        }
        let lengths = t.lengths
        lengths.update(repeating: 0, count: 19)
        // 19 × 3 bits = 57: refilled as needed.
        for i in 0..<codeLengthCount {
            try bits.ensure(3)
            lengths[DeflateFormat.codeLengthOrder[i]] = UInt8(truncatingIfNeeded: bits.take(3))
        }
        if bits.consumedPastEnd { throw .truncated }

        let codeLengthBits: Int
        do throws(CodeLengthProblem) {
            codeLengthBits = try HuffmanTableBuilder.build(
                table: t.codeLength, capacity: TableSize.codeLengthEnough, maxTableBits: TableSize.codeLengthBits,
                lengths: lengths, symbolCount: 19, results: results.codeLength, allowIncomplete: false, scratch: t.scratch)
        } catch {
            throw corrupt(.invalidCodeLengths(.codeLength, error.defect))
        }

        let total = literalLengthCount + distanceCount
        let codeLengthMask = UInt64(1) << UInt64(codeLengthBits) - 1
        let codeLength = t.codeLength
        var bitbuf = bits.buffer
        var bitsleft = bits.count
        var inNext = bits.next
        var overread = bits.overread
        let inEnd = bits.end
        var i = 0
        var previous: UInt64 = 0
        var failure: InflateError.Reason?
        while i < total {
            // A codeword (≤ 7 bits) and its extra bits (≤ 7).
            if bitsleft < 14 && !Self.refill(&bitbuf, &bitsleft, &inNext, inEnd, &overread) { throw .truncated }
            let entry = codeLength[Int(truncatingIfNeeded: bitbuf & codeLengthMask)]
            let saved = bitbuf
            bitbuf &>>= UInt64(truncatingIfNeeded: entry)
            bitsleft &-= UInt64(entry & 0xFF)
            let count = Int(truncatingIfNeeded: (entry &>> 16) & 0xFF)
                &+ Int(truncatingIfNeeded: (saved & (UInt64(1) &<< UInt64(entry & 0xFF) &- 1)) &>> UInt64((entry &>> 8) & 0xF))
            let repeats = entry & HuffmanEntry.repeatPrevious != 0
            if repeats && i == 0 { failure = .repeatWithoutPreviousLength; break }
            let value = repeats ? previous : UInt64((entry &>> 24) & 0xF)
            guard count <= total &- i else { failure = .repeatPastEnd; break }
            // Whole words, two at once: the lengths buffer has room past the last length for the
            // overshoot.
            var p = UnsafeMutableRawPointer(lengths + i)
            let word = value &* 0x0101_0101_0101_0101
            p.storeBytes(of: word, as: UInt64.self)
            (p + 8).storeBytes(of: word, as: UInt64.self)
            if count > 16 {
                let stop = p + count
                p += 16
                repeat {
                    p.storeBytes(of: word, as: UInt64.self)
                    p += 8
                } while p < stop
            }
            previous = value
            i &+= count
        }
        bits.buffer = bitbuf
        bits.count = bitsleft
        bits.next = inNext
        bits.overread = overread
        if bits.consumedPastEnd { throw .truncated }
        if let failure { throw .corrupt(failure) }
        guard lengths[256] != 0 else { throw .corrupt(.missingEndOfBlock) }

        let literalLengthBits: Int
        do throws(CodeLengthProblem) {
            literalLengthBits = try HuffmanTableBuilder.build(
                table: t.literalLength, capacity: TableSize.literalLengthEnough, maxTableBits: TableSize.literalLengthBits,
                lengths: lengths, symbolCount: literalLengthCount,
                results: results.literalLength, allowIncomplete: true, scratch: t.scratch)
        } catch {
            throw .corrupt(.invalidCodeLengths(.literalLength, error.defect))
        }
        // Pairing literals visits the whole main table: worth it only when the input left is
        // large enough for the block to be long (not for a card's payload).
        if bits.available >= Self.pairingThreshold << literalLengthBits {
            HuffmanTableBuilder.pairLiterals(t.literalLength, tableBits: literalLengthBits)
        }
        let distanceBits: Int
        do throws(CodeLengthProblem) {
            distanceBits = try HuffmanTableBuilder.build(
                table: t.distance, capacity: TableSize.distanceEnough, maxTableBits: TableSize.distanceBits,
                lengths: lengths + literalLengthCount, symbolCount: distanceCount,
                results: results.distance, allowIncomplete: true, scratch: t.scratch)
        } catch {
            throw .corrupt(.invalidCodeLengths(.distance, error.defect))
        }
        return (literalLengthBits, distanceBits)
    }

    // MARK: Huffman blocks

    /// Decodes one Huffman-coded block up to its end-of-block symbol.
    private mutating func huffmanBlock(
        literalLength: UnsafePointer<UInt32>, literalLengthBits: Int,
        distance: UnsafePointer<UInt32>, distanceBits: Int
    ) throws(InflateError) {
        let literalLengthMask = UInt64(1) << UInt64(literalLengthBits) - 1
        let distanceMask = UInt64(1) << UInt64(distanceBits) - 1
        let inEnd = bits.end
        while true {
            // The fast loop works on locals so they stay in registers.
            var bitbuf = bits.buffer
            var bitsleft = bits.count
            var inNext = bits.next
            var overread = bits.overread
            var outNext = next
            let outStart = out.start
            let outEnd = out.end
            var failure: FastLoopFailure? = nil
            var endOfBlock = false

            // The next literal/length entry is looked up ahead (from at least `literalLengthBits`
            // valid bits), so the lookup overlaps refills and match copies.
            var entry: UInt32 = 0
            if outNext <= outEnd {
                if Self.refill(&bitbuf, &bitsleft, &inNext, inEnd, &overread) {
                    entry = literalLength[Int(truncatingIfNeeded: bitbuf & literalLengthMask)]
                } else {
                    failure = .truncatedInput
                }
            }
            fast: while failure == nil && outNext <= outEnd {
                if !Self.refill(&bitbuf, &bitsleft, &inNext, inEnd, &overread) {
                    failure = .truncatedInput
                    break fast
                }
                if entry & HuffmanEntry.literal != 0 {
                    // Up to three entries of one or two literals (≤ 15 bits each) per refill.
                    bitbuf &>>= UInt64(truncatingIfNeeded: entry)  // the shift count is the low 6 bits
                    bitsleft &-= UInt64(entry & 0xFF)
                    Self.storeLiterals(entry, &outNext)
                    entry = literalLength[Int(truncatingIfNeeded: bitbuf & literalLengthMask)]
                    if entry & HuffmanEntry.literal != 0 {
                        bitbuf &>>= UInt64(truncatingIfNeeded: entry)
                        bitsleft &-= UInt64(entry & 0xFF)
                        Self.storeLiterals(entry, &outNext)
                        entry = literalLength[Int(truncatingIfNeeded: bitbuf & literalLengthMask)]
                        if entry & HuffmanEntry.literal != 0 {
                            bitbuf &>>= UInt64(truncatingIfNeeded: entry)
                            bitsleft &-= UInt64(entry & 0xFF)
                            Self.storeLiterals(entry, &outNext)
                            // At least 56 − 45 = 11 bits remain: enough to look ahead.
                            entry = literalLength[Int(truncatingIfNeeded: bitbuf & literalLengthMask)]
                            continue fast
                        }
                    }
                }
                // At least 56 − 30 bits remain: enough for a length (≤ 15 + 5 bits).
                var saved = bitbuf
                bitbuf &>>= UInt64(truncatingIfNeeded: entry)
                bitsleft &-= UInt64(entry & 0xFF)
                if entry & HuffmanEntry.exceptional != 0 {
                    if entry & HuffmanEntry.subtable != 0 {
                        let index = Int(truncatingIfNeeded: entry &>> 16)
                            &+ Int(truncatingIfNeeded: bitbuf & (UInt64(1) &<< UInt64((entry &>> 8) & 0xF) &- 1))
                        entry = literalLength[index]
                        saved = bitbuf
                        bitbuf &>>= UInt64(truncatingIfNeeded: entry)
                        bitsleft &-= UInt64(entry & 0xFF)
                        if entry & HuffmanEntry.literal != 0 {
                            Self.storeLiterals(entry, &outNext)
                            entry = literalLength[Int(truncatingIfNeeded: bitbuf & literalLengthMask)]
                            continue fast
                        }
                    }
                    if entry & HuffmanEntry.exceptional != 0 {
                        if entry & HuffmanEntry.endOfBlock != 0 {
                            endOfBlock = true
                        } else {
                            failure = .corrupt(.invalidLiteralLengthSymbol)
                        }
                        break fast
                    }
                }
                let length = Int(truncatingIfNeeded: entry &>> 16)
                    &+ Int(truncatingIfNeeded: (saved & (UInt64(1) &<< UInt64(entry & 0xFF) &- 1)) &>> UInt64((entry &>> 8) & 0xF))

                // A distance takes up to 15 + 13 bits.
                if bitsleft < 28 && !Self.refill(&bitbuf, &bitsleft, &inNext, inEnd, &overread) {
                    failure = .truncatedInput
                    break fast
                }
                entry = distance[Int(truncatingIfNeeded: bitbuf & distanceMask)]
                saved = bitbuf
                bitbuf &>>= UInt64(truncatingIfNeeded: entry)
                bitsleft &-= UInt64(entry & 0xFF)
                if entry & HuffmanEntry.exceptional != 0 {
                    if entry & HuffmanEntry.subtable != 0 {
                        let index = Int(truncatingIfNeeded: entry &>> 16)
                            &+ Int(truncatingIfNeeded: bitbuf & (UInt64(1) &<< UInt64((entry &>> 8) & 0xF) &- 1))
                        entry = distance[index]
                        saved = bitbuf
                        bitbuf &>>= UInt64(truncatingIfNeeded: entry)
                        bitsleft &-= UInt64(entry & 0xFF)
                    }
                    if entry & HuffmanEntry.exceptional != 0 {
                        failure = .corrupt(.invalidDistanceSymbol)
                        break fast
                    }
                }
                let offset = Int(truncatingIfNeeded: entry &>> 16)
                    &+ Int(truncatingIfNeeded: (saved & (UInt64(1) &<< UInt64(entry & 0xFF) &- 1)) &>> UInt64((entry &>> 8) & 0xF))
                let available = outNext - outStart
                if offset > available {
                    failure = .corrupt(.distanceTooFarBack(distance: offset, available: available))
                    break fast
                }
                // Look ahead before copying.
                if bitsleft < 15 && !Self.refill(&bitbuf, &bitsleft, &inNext, inEnd, &overread) {
                    failure = .truncatedInput
                    break fast
                }
                entry = literalLength[Int(truncatingIfNeeded: bitbuf & literalLengthMask)]
                Self.copyMatch(to: outNext, distance: offset, length: length)
                outNext += length
            }

            bits.buffer = bitbuf
            bits.count = bitsleft
            bits.next = inNext
            bits.overread = overread
            next = outNext
            if let failure {
                // Past the end of the input, any failure means the input ran out first.
                if case .truncatedInput = failure { throw .truncated }
                if case .corrupt(let reason) = failure { throw corrupt(reason) }
            }
            // Output past the limit made from bits past the end of the input means the input
            // ran out first.
            if endOfBlock {
                // The last iteration may have gone past the room, into the slack.
                if produced > out.limit { throw bits.consumedPastEnd ? .truncated : .outputTooLarge(limit: out.limit) }
                return
            }
            // Out of room (the next byte is past it): grow, or stop past the limit. (Output of
            // exactly the limit is fine: the next symbol may end the block.)
            do {
                try out.grow(next: &next, needed: 0)
            } catch {
                throw bits.consumedPastEnd ? .truncated : error
            }
        }
    }

    /// Writes a literal entry's one or two bytes (always storing two: the fast loop's margin
    /// covers the spare one).
    @inline(__always)
    private static func storeLiterals(_ entry: UInt32, _ outNext: inout UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(outNext).storeBytes(of: UInt16(truncatingIfNeeded: entry &>> 8).littleEndian, as: UInt16.self)
        outNext += 1 &+ Int(truncatingIfNeeded: (entry &>> 30) & 1)
    }

    /// Why the fast loop stopped early.
    private enum FastLoopFailure {
        case corrupt(InflateError.Reason)
        /// More than 8 zero bytes past the end of the input were needed.
        case truncatedInput
    }

    /// Refills the bit buffer to at least 56 bits: a word at a time while 8 input bytes remain,
    /// then a byte at a time, then with zero bytes it counts. Returns false once a zero byte has
    /// certainly been consumed (the input is truncated).
    @inline(__always)
    private static func refill(
        _ bitbuf: inout UInt64, _ bitsleft: inout UInt64, _ inNext: inout UnsafePointer<UInt8>,
        _ inEnd: UnsafePointer<UInt8>, _ overread: inout UInt64
    ) -> Bool {
        if inEnd - inNext >= 8 {
            bitbuf |= UnsafeRawPointer(inNext).loadUnaligned(as: UInt64.self).littleEndian &<< bitsleft
            inNext += Int(truncatingIfNeeded: (63 &- bitsleft) &>> 3)
            bitsleft |= 56
            return true
        }
        guard let s = refillTail(TailState(bitbuf: bitbuf, bitsleft: bitsleft, inNext: inNext, overread: overread), inEnd) else {
            return false
        }
        bitbuf = s.bitbuf
        bitsleft = s.bitsleft
        inNext = s.inNext
        overread = s.overread
        return true
    }

    /// The byte-at-a-time part of `refill`, out of line; takes and returns values (not `inout`)
    /// so the fast loop's state can stay in registers.
    @inline(never)
    private static func refillTail(
        _ state: TailState, _ inEnd: UnsafePointer<UInt8>
    ) -> TailState? {
        var s = state
        while s.bitsleft <= 56 {
            if s.inNext < inEnd {
                s.bitbuf |= UInt64(s.inNext.pointee) &<< s.bitsleft
                s.inNext += 1
            } else {
                if s.overread >= 8 { return nil }
                s.overread &+= 1
            }
            s.bitsleft &+= 8
        }
        return s
    }

    private struct TailState {
        var bitbuf: UInt64
        var bitsleft: UInt64
        var inNext: UnsafePointer<UInt8>
        var overread: UInt64
    }

    /// Copies a match inside the output, in 8-byte words where the distance allows. May write
    /// up to 264 bytes from `destination` (the fast loop's margin covers that).
    @inline(__always)
    private static func copyMatch(to destination: UnsafeMutablePointer<UInt8>, distance: Int, length: Int) {
        var d = UnsafeMutableRawPointer(destination)
        let end = d + length
        if distance >= 8 {
            // Five words cover most matches without a data-dependent branch.
            var s = UnsafeRawPointer(d - distance)
            d.storeBytes(of: s.loadUnaligned(as: UInt64.self), as: UInt64.self)
            (d + 8).storeBytes(of: (s + 8).loadUnaligned(as: UInt64.self), as: UInt64.self)
            (d + 16).storeBytes(of: (s + 16).loadUnaligned(as: UInt64.self), as: UInt64.self)
            (d + 24).storeBytes(of: (s + 24).loadUnaligned(as: UInt64.self), as: UInt64.self)
            (d + 32).storeBytes(of: (s + 32).loadUnaligned(as: UInt64.self), as: UInt64.self)
            if length > 40 {
                d += 40
                s += 40
                repeat {
                    d.storeBytes(of: s.loadUnaligned(as: UInt64.self), as: UInt64.self)
                    d += 8
                    s += 8
                } while d < end
            }
        } else if distance == 1 {
            let word = UInt64((destination - 1).pointee) &* 0x0101_0101_0101_0101
            repeat {
                d.storeBytes(of: word, as: UInt64.self)
                d += 8
            } while d < end
        } else {
            var p = destination
            let stop = destination + length
            repeat {
                p.pointee = (p - distance).pointee
                p += 1
            } while p < stop
        }
    }
}

extension CodeLengthProblem {
    var defect: InflateError.CodeDefect {
        switch self {
        case .overSubscribed: return .overSubscribed
        case .incomplete: return .incomplete
        }
    }
}
