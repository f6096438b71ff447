/// Decodes one scan of a progressive frame (T.81 G.1.2) into the luminance coefficients:
/// DC first and refinement scans (interleaved or not) and AC first and refinement scans
/// (spectral selection with end-of-band runs, successive approximation).
///
/// Scans without the luminance component never reach here (the caller skips their data), so
/// AC scans, which code one component each, are always luminance scans. Interleaved DC scans
/// still carry chroma blocks, which are decoded and dropped.
enum JPEGProgressiveScan {
    /// - Parameters:
    ///   - coefficients: the luminance component's blocks, 64 natural-order values each,
    ///     `frame.luma.paddedBlocksWide` blocks to a row.
    ///   - nonzero: per block, bit k set when zig-zag coefficient k is nonzero, so refinement
    ///     scans visit only those instead of testing all 63.
    /// - Returns: the offset of the marker that follows the scan's data.
    static func decode(
        _ scan: JPEGScanHeader, frame: JPEGFrame, dcTables: [JPEGHuffmanLookup?], acTables: [JPEGHuffmanLookup?],
        restartInterval: Int, coefficients: UnsafeMutablePointer<Int16>, nonzero: UnsafeMutablePointer<UInt64>,
        bytes: UnsafeBufferPointer<UInt8>, start: Int
    ) throws(JPEGError) -> Int {
        var reader = JPEGBitReader(bytes: bytes, position: start)
        let blocksPerRow = frame.luma.paddedBlocksWide
        let isLuma = scan.members.map { $0.component == 0 }
        if scan.start == 0 {
            var predictors = [Int](repeating: 0, count: scan.members.count)
            let low = scan.low
            if scan.high == 0 {
                try JPEGScanWalker.walk(scan, frame: frame, restartInterval: restartInterval, reader: &reader,
                                        onRestart: { for i in predictors.indices { predictors[i] = 0 } }) { (member, blockX, blockY, reader) throws(JPEGError) in
                    guard let table = dcTables[member] else { return }
                    let category = try reader.decode(table)
                    if category > 0 { predictors[member] &+= reader.receiveExtend(category) }
                    if isLuma[member] {
                        coefficients[(blockY * blocksPerRow + blockX) * 64] = Int16(truncatingIfNeeded: predictors[member] &<< low)
                    }
                }
            } else {
                // DC refinement: one raw bit per block, no Huffman coding.
                try JPEGScanWalker.walk(scan, frame: frame, restartInterval: restartInterval, reader: &reader, onRestart: {}) { (member, blockX, blockY, reader) throws(JPEGError) in
                    if reader.bit() != 0, isLuma[member] {
                        coefficients[(blockY * blocksPerRow + blockX) * 64] |= Int16(truncatingIfNeeded: 1 << low)
                    }
                }
            }
            return try reader.endOfScan()
        }
        guard let table = acTables[0] else { return try reader.endOfScan() }
        let natural = UnsafeMutablePointer<Int>.allocate(capacity: 64)
        defer { natural.deallocate() }
        natural.initialize(from: JPEGZigZag.natural, count: 64)
        var endOfBandRun = 0
        let start = scan.start, end = scan.end, low = scan.low
        if scan.high == 0 {
            try JPEGScanWalker.walk(scan, frame: frame, restartInterval: restartInterval, reader: &reader,
                                    onRestart: { endOfBandRun = 0 }) { (_, blockX, blockY, reader) throws(JPEGError) in
                if endOfBandRun > 0 {
                    endOfBandRun -= 1
                    return
                }
                let index = blockY * blocksPerRow + blockX
                let block = coefficients + index * 64
                var mask = nonzero[index]
                defer { nonzero[index] = mask }
                var k = start
                while k <= end {
                    let fast = table.fastAC[reader.peek(JPEGHuffmanTable.fastBits)]
                    if fast != 0 {
                        reader.skip(Int(fast & 0xFF))
                        k += Int((fast >> 8) & 0xF)
                        guard k <= end else { throw .invalidCoefficient(offset: reader.position) }
                        block[natural[k]] = Int16(truncatingIfNeeded: (fast >> 16) &<< low)
                        mask |= 1 << UInt64(k)
                        k += 1
                        continue
                    }
                    let symbol = try reader.decode(table)
                    let run = symbol >> 4, size = symbol & 15
                    if size == 0 {
                        if run < 15 {
                            // EOBn: this block and 2^run − 1 + (run bits) more end here.
                            endOfBandRun = (1 << run) - 1 + reader.bits(run)
                            break
                        }
                        k += 16
                        continue
                    }
                    k += run
                    guard k <= end else { throw .invalidCoefficient(offset: reader.position) }
                    let value = reader.receiveExtend(size) &<< low
                    block[natural[k]] = Int16(truncatingIfNeeded: value)
                    if Int16(truncatingIfNeeded: value) != 0 { mask |= 1 << UInt64(k) }
                    k += 1
                }
            }
        } else {
            try JPEGScanWalker.walk(scan, frame: frame, restartInterval: restartInterval, reader: &reader,
                                    onRestart: { endOfBandRun = 0 }) { (_, blockX, blockY, reader) throws(JPEGError) in
                let index = blockY * blocksPerRow + blockX
                try refineAC(coefficients + index * 64, nonzero: &nonzero[index], reader: &reader, table: table, start: start, end: end,
                             low: low, endOfBandRun: &endOfBandRun, natural: natural)
            }
        }
        return try reader.endOfScan()
    }

    /// One block of an AC refinement scan (T.81 G.1.2.3; libjpeg's decode_mcu_AC_refine):
    /// every coefficient already nonzero gets a correction bit, and newly significant ones
    /// (always ±1 at this bit) are placed after `run` still-zero coefficients.
    @inline(__always)
    private static func refineAC(
        _ block: UnsafeMutablePointer<Int16>, nonzero: inout UInt64, reader: inout JPEGBitReader, table: JPEGHuffmanLookup,
        start: Int, end: Int, low: Int, endOfBandRun: inout Int, natural: UnsafePointer<Int>
    ) throws(JPEGError) {
        let plus = Int16(truncatingIfNeeded: 1 << low), minus = Int16(truncatingIfNeeded: -1 << low)
        @inline(__always) func correct(_ position: Int, _ reader: inout JPEGBitReader) {
            let value = block[position]
            if reader.bit() != 0, value & plus == 0 {
                block[position] = value &+ (value >= 0 ? plus : minus)
            }
        }
        var mask = nonzero
        defer { nonzero = mask }
        var k = start
        if endOfBandRun == 0 {
            while k <= end {
                let symbol = try reader.decode(table)
                var run = symbol >> 4
                let size = symbol & 15
                var newValue: Int16 = 0
                if size != 0 {
                    // A newly significant coefficient is ±2^low; any other size is corrupt data,
                    // which libjpeg only warns about and reads as 1.
                    newValue = reader.bit() != 0 ? plus : minus
                } else if run != 15 {
                    endOfBandRun = (1 << run) + reader.bits(run)
                    break
                }
                // Skip `run` zero coefficients, refining the nonzero ones passed on the way.
                while k <= end {
                    if mask & (1 << UInt64(k)) != 0 {
                        correct(natural[k], &reader)
                    } else {
                        if run == 0 { break }
                        run -= 1
                    }
                    k += 1
                }
                if newValue != 0 {
                    guard k <= end else { throw .invalidCoefficient(offset: reader.position) }
                    block[natural[k]] = newValue
                    mask |= 1 << UInt64(k)
                }
                k += 1
            }
        }
        if endOfBandRun > 0 {
            // Inside an end-of-band run: only corrections for coefficients already nonzero,
            // found from the mask rather than by testing every position.
            if k <= end {
                let upTo: UInt64 = end == 63 ? ~0 : (1 << UInt64(end + 1)) &- 1
                var pending = mask & upTo & ~((1 << UInt64(k)) &- 1)
                while pending != 0 {
                    let next = pending.trailingZeroBitCount
                    correct(natural[next], &reader)
                    pending &= pending &- 1
                }
            }
            endOfBandRun -= 1
        }
    }
}
