/// The DEFLATE decoder: block headers, stored blocks, and the table-driven Huffman loop.
///
/// Memory safety without per-symbol traps: the fast loop runs only while at least 16 input
/// bytes and 280 output bytes remain (enough for two word refills and three literals plus a
/// 258-byte match written in 8-byte words); everything else goes through `slowStep`, which
/// checks every read and write. Table lookups are masked to the table's size and distances are
/// checked against the output so far.
struct Inflater {
    var bits: BitReader
    var out: OutputBuffer
    /// The next output byte.
    var next: UnsafeMutablePointer<UInt8>
    private var tables: DynamicTables?

    /// Output room the fast loop needs: 3 literals + a 258-byte match rounded up to words.
    static let fastOutputMargin = 280
    /// Input the fast loop needs: two word refills.
    static let fastInputMargin = 16

    init(input: UnsafePointer<UInt8>, count: Int, output: UnsafeMutablePointer<UInt8>, capacity: Int, limit: Int) {
        bits = BitReader(input, count: count)
        out = OutputBuffer(borrowing: output, capacity: capacity, limit: limit)
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

    private static let codeLengthOrder: [Int] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// Reads a dynamic block's code lengths and builds its tables; returns their index bits.
    private mutating func dynamicHeader(_ t: DynamicTables) throws(InflateError) -> (Int, Int) {
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
            lengths[Self.codeLengthOrder[i]] = UInt8(truncatingIfNeeded: bits.take(3))
        }
        if bits.consumedPastEnd { throw .truncated }

        let codeLengthBits: Int
        do throws(CodeLengthProblem) {
            codeLengthBits = try HuffmanEntry.codeLengthResults.withUnsafeBufferPointer { (r) throws(CodeLengthProblem) -> Int in
                try HuffmanTableBuilder.build(
                    table: t.codeLength, capacity: TableSize.codeLengthEnough, maxTableBits: TableSize.codeLengthBits,
                    lengths: lengths, symbolCount: 19, results: r.baseAddress!, allowIncomplete: false, scratch: t.scratch)
            }
        } catch {
            throw corrupt(.invalidCodeLengths(.codeLength, error.defect))
        }

        let total = literalLengthCount + distanceCount
        let codeLengthMask = UInt64(1) << UInt64(codeLengthBits) - 1
        var i = 0
        while i < total {
            // A codeword (≤ 7 bits) and its extra bits (≤ 7).
            try bits.ensure(14)
            let entry = t.codeLength[Int(truncatingIfNeeded: bits.buffer & codeLengthMask)]
            bits.consume(UInt64(entry & 0xFF))
            let symbol = entry >> 16
            if symbol < 16 {
                lengths[i] = UInt8(truncatingIfNeeded: symbol)
                i += 1
                continue
            }
            let value: UInt8
            let repeatCount: Int
            switch symbol {
            case 16:
                guard i > 0 else { throw corrupt(.repeatWithoutPreviousLength) }
                value = lengths[i - 1]
                repeatCount = 3 + Int(bits.take(2))
            case 17:
                value = 0
                repeatCount = 3 + Int(bits.take(3))
            default:
                value = 0
                repeatCount = 11 + Int(bits.take(7))
            }
            guard repeatCount <= total - i else { throw corrupt(.repeatPastEnd) }
            (lengths + i).update(repeating: value, count: repeatCount)
            i += repeatCount
        }
        if bits.consumedPastEnd { throw .truncated }
        guard lengths[256] != 0 else { throw .corrupt(.missingEndOfBlock) }

        let literalLengthBits: Int
        do throws(CodeLengthProblem) {
            literalLengthBits = try HuffmanEntry.literalLengthResults.withUnsafeBufferPointer { (r) throws(CodeLengthProblem) -> Int in
                try HuffmanTableBuilder.build(
                    table: t.literalLength, capacity: TableSize.literalLengthEnough, maxTableBits: TableSize.literalLengthBits,
                    lengths: lengths, symbolCount: literalLengthCount, results: r.baseAddress!, allowIncomplete: true,
                    scratch: t.scratch)
            }
        } catch {
            throw .corrupt(.invalidCodeLengths(.literalLength, error.defect))
        }
        let distanceBits: Int
        do throws(CodeLengthProblem) {
            distanceBits = try HuffmanEntry.distanceResults.withUnsafeBufferPointer { (r) throws(CodeLengthProblem) -> Int in
                try HuffmanTableBuilder.build(
                    table: t.distance, capacity: TableSize.distanceEnough, maxTableBits: TableSize.distanceBits,
                    lengths: lengths + literalLengthCount, symbolCount: distanceCount, results: r.baseAddress!,
                    allowIncomplete: true, scratch: t.scratch)
            }
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
            var outNext = next
            let outStart = out.start
            let outEnd = out.end
            var failure: InflateError.Reason? = nil
            var endOfBlock = false

            fast: while inEnd - inNext >= Self.fastInputMargin && outEnd - outNext >= Self.fastOutputMargin {
                bitbuf |= UnsafeRawPointer(inNext).loadUnaligned(as: UInt64.self).littleEndian &<< bitsleft
                inNext += Int(truncatingIfNeeded: (63 &- bitsleft) &>> 3)
                bitsleft |= 56

                var entry = literalLength[Int(truncatingIfNeeded: bitbuf & literalLengthMask)]
                if entry & HuffmanEntry.literal != 0 {
                    // Up to three literals (3 × 15 bits) per refill.
                    bitbuf &>>= UInt64(entry & 0xFF)
                    bitsleft &-= UInt64(entry & 0xFF)
                    outNext.pointee = UInt8(truncatingIfNeeded: entry &>> 16)
                    outNext += 1
                    entry = literalLength[Int(truncatingIfNeeded: bitbuf & literalLengthMask)]
                    if entry & HuffmanEntry.literal != 0 {
                        bitbuf &>>= UInt64(entry & 0xFF)
                        bitsleft &-= UInt64(entry & 0xFF)
                        outNext.pointee = UInt8(truncatingIfNeeded: entry &>> 16)
                        outNext += 1
                        entry = literalLength[Int(truncatingIfNeeded: bitbuf & literalLengthMask)]
                        if entry & HuffmanEntry.literal != 0 {
                            bitbuf &>>= UInt64(entry & 0xFF)
                            bitsleft &-= UInt64(entry & 0xFF)
                            outNext.pointee = UInt8(truncatingIfNeeded: entry &>> 16)
                            outNext += 1
                            continue fast
                        }
                    }
                }
                // At least 56 − 30 bits remain: enough for a length (≤ 15 + 5 bits).
                var saved = bitbuf
                bitbuf &>>= UInt64(entry & 0xFF)
                bitsleft &-= UInt64(entry & 0xFF)
                if entry & HuffmanEntry.exceptional != 0 {
                    if entry & HuffmanEntry.subtable != 0 {
                        let index = Int(truncatingIfNeeded: entry &>> 16)
                            &+ Int(truncatingIfNeeded: bitbuf & (UInt64(1) &<< UInt64((entry &>> 8) & 0xF) &- 1))
                        entry = literalLength[index]
                        saved = bitbuf
                        bitbuf &>>= UInt64(entry & 0xFF)
                        bitsleft &-= UInt64(entry & 0xFF)
                        if entry & HuffmanEntry.literal != 0 {
                            outNext.pointee = UInt8(truncatingIfNeeded: entry &>> 16)
                            outNext += 1
                            continue fast
                        }
                    }
                    if entry & HuffmanEntry.exceptional != 0 {
                        if entry & HuffmanEntry.endOfBlock != 0 {
                            endOfBlock = true
                        } else {
                            failure = .invalidLiteralLengthSymbol
                        }
                        break fast
                    }
                }
                let length = Int(truncatingIfNeeded: entry &>> 16)
                    &+ Int(truncatingIfNeeded: (saved & (UInt64(1) &<< UInt64(entry & 0xFF) &- 1)) &>> UInt64((entry &>> 8) & 0xF))

                // A distance takes up to 15 + 13 bits.
                if bitsleft < 28 {
                    bitbuf |= UnsafeRawPointer(inNext).loadUnaligned(as: UInt64.self).littleEndian &<< bitsleft
                    inNext += Int(truncatingIfNeeded: (63 &- bitsleft) &>> 3)
                    bitsleft |= 56
                }
                entry = distance[Int(truncatingIfNeeded: bitbuf & distanceMask)]
                saved = bitbuf
                bitbuf &>>= UInt64(entry & 0xFF)
                bitsleft &-= UInt64(entry & 0xFF)
                if entry & HuffmanEntry.exceptional != 0 {
                    if entry & HuffmanEntry.subtable != 0 {
                        let index = Int(truncatingIfNeeded: entry &>> 16)
                            &+ Int(truncatingIfNeeded: bitbuf & (UInt64(1) &<< UInt64((entry &>> 8) & 0xF) &- 1))
                        entry = distance[index]
                        saved = bitbuf
                        bitbuf &>>= UInt64(entry & 0xFF)
                        bitsleft &-= UInt64(entry & 0xFF)
                    }
                    if entry & HuffmanEntry.exceptional != 0 {
                        failure = .invalidDistanceSymbol
                        break fast
                    }
                }
                let offset = Int(truncatingIfNeeded: entry &>> 16)
                    &+ Int(truncatingIfNeeded: (saved & (UInt64(1) &<< UInt64(entry & 0xFF) &- 1)) &>> UInt64((entry &>> 8) & 0xF))
                let available = outNext - outStart
                if offset > available {
                    failure = .distanceTooFarBack(distance: offset, available: available)
                    break fast
                }
                Self.copyMatch(to: outNext, distance: offset, length: length)
                outNext += length
            }

            bits.buffer = bitbuf
            bits.count = bitsleft
            bits.next = inNext
            next = outNext
            if let failure { throw .corrupt(failure) }
            if endOfBlock { return }
            if try slowStep(literalLength: literalLength, literalLengthMask: literalLengthMask,
                            distance: distance, distanceMask: distanceMask) {
                return
            }
        }
    }

    /// Copies a match inside the output, in 8-byte words where the distance allows. May write
    /// up to 264 bytes from `destination` (the fast loop's margin covers that).
    @inline(__always)
    private static func copyMatch(to destination: UnsafeMutablePointer<UInt8>, distance: Int, length: Int) {
        var d = UnsafeMutableRawPointer(destination)
        let end = d + length
        if distance >= 8 {
            var s = UnsafeRawPointer(d - distance)
            d.storeBytes(of: s.loadUnaligned(as: UInt64.self), as: UInt64.self)
            (d + 8).storeBytes(of: (s + 8).loadUnaligned(as: UInt64.self), as: UInt64.self)
            if length > 16 {
                d += 16
                s += 16
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

    /// Decodes one symbol with every read and write checked (near the end of the input or of
    /// the output room). Returns true at the end of the block.
    private mutating func slowStep(
        literalLength: UnsafePointer<UInt32>, literalLengthMask: UInt64,
        distance: UnsafePointer<UInt32>, distanceMask: UInt64
    ) throws(InflateError) -> Bool {
        // Out of output room with input to spare: grow now so the fast loop can go on.
        if bits.available >= Self.fastInputMargin, out.end - next < Self.fastOutputMargin, out.end - out.start < out.limit {
            try out.grow(next: &next, needed: min(Self.fastOutputMargin, out.limit - produced))
            return false
        }
        try bits.ensure(20)
        var entry = literalLength[Int(truncatingIfNeeded: bits.buffer & literalLengthMask)]
        var saved = bits.buffer
        bits.consume(UInt64(entry & 0xFF))
        if entry & HuffmanEntry.subtable != 0 {
            entry = literalLength[Int(truncatingIfNeeded: entry >> 16) + Int(truncatingIfNeeded: bits.peek(UInt64((entry >> 8) & 0xF)))]
            saved = bits.buffer
            bits.consume(UInt64(entry & 0xFF))
        }
        if bits.consumedPastEnd { throw .truncated }
        if entry & HuffmanEntry.literal != 0 {
            if next == out.end { try out.grow(next: &next, needed: 1) }
            next.pointee = UInt8(truncatingIfNeeded: entry >> 16)
            next += 1
            return false
        }
        if entry & HuffmanEntry.exceptional != 0 {
            if entry & HuffmanEntry.endOfBlock != 0 { return true }
            throw .corrupt(.invalidLiteralLengthSymbol)
        }
        let length = Int(entry >> 16) + Int((saved & (UInt64(1) << UInt64(entry & 0xFF) - 1)) >> UInt64((entry >> 8) & 0xF))

        try bits.ensure(28)
        entry = distance[Int(truncatingIfNeeded: bits.buffer & distanceMask)]
        saved = bits.buffer
        bits.consume(UInt64(entry & 0xFF))
        if entry & HuffmanEntry.subtable != 0 {
            entry = distance[Int(truncatingIfNeeded: entry >> 16) + Int(truncatingIfNeeded: bits.peek(UInt64((entry >> 8) & 0xF)))]
            saved = bits.buffer
            bits.consume(UInt64(entry & 0xFF))
        }
        if bits.consumedPastEnd { throw .truncated }
        if entry & HuffmanEntry.exceptional != 0 { throw .corrupt(.invalidDistanceSymbol) }
        let offset = Int(entry >> 16) + Int((saved & (UInt64(1) << UInt64(entry & 0xFF) - 1)) >> UInt64((entry >> 8) & 0xF))
        let available = produced
        guard offset <= available else { throw .corrupt(.distanceTooFarBack(distance: offset, available: available)) }
        if out.end - next < length { try out.grow(next: &next, needed: length) }
        var p = next
        let stop = next + length
        repeat {
            p.pointee = (p - offset).pointee
            p += 1
        } while p < stop
        next = stop
        return false
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
