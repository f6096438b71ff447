/// Decodes one scan of a sequential (baseline or extended, Huffman) frame (T.81 F.2.2),
/// inverse-transforming the luminance blocks straight into the plane; other components'
/// blocks are decoded only to stay in step with the bit stream.
enum JPEGSequentialScan {
    /// - Returns: the offset of the marker that follows the scan's data.
    static func decode(
        _ scan: JPEGScanHeader, frame: JPEGFrame, dcTables: [JPEGHuffmanLookup], acTables: [JPEGHuffmanLookup],
        restartInterval: Int, quantization: [Int32], plane: inout JPEGLumaPlane, bytes: UnsafeBufferPointer<UInt8>, start: Int
    ) throws(JPEGError) -> Int {
        var reader = JPEGBitReader(bytes: bytes, position: start)
        var predictors = [Int](repeating: 0, count: scan.members.count)
        let isLuma = scan.members.map { $0.component == 0 }
        let luma = frame.luma
        let block = UnsafeMutablePointer<Int32>.allocate(capacity: 64)
        let quant = UnsafeMutablePointer<Int32>.allocate(capacity: 64)
        let natural = UnsafeMutablePointer<Int>.allocate(capacity: 64)
        defer { block.deallocate(); quant.deallocate(); natural.deallocate() }
        quant.initialize(from: quantization, count: 64)
        natural.initialize(from: JPEGZigZag.natural, count: 64)
        block.initialize(repeating: 0, count: 64)
        let stride = plane.stride
        try plane.pixels.withUnsafeMutableBufferPointer { (pixels: inout UnsafeMutableBufferPointer<UInt8>) throws(JPEGError) in
            guard let base = pixels.baseAddress else { return }
            try JPEGScanWalker.walk(scan, frame: frame, restartInterval: restartInterval, reader: &reader,
                                    onRestart: { for i in predictors.indices { predictors[i] = 0 } }) { (member, blockX, blockY, reader) throws(JPEGError) in
                let dc = dcTables[member], ac = acTables[member]
                guard isLuma[member] else {
                    try skipBlock(&reader, dc: dc, ac: ac, predictor: &predictors[member])
                    return
                }
                let hasAC = try decodeBlock(&reader, dc: dc, ac: ac, predictor: &predictors[member], into: block, natural: natural)
                // Blocks wholly in the MCU padding are coded but never seen.
                if blockX < luma.blocksWide, blockY < luma.blocksHigh {
                    let output = base + blockY * 8 * stride + blockX * 8
                    if hasAC {
                        JPEGIDCT.transform(block, quant: quant, output: output, stride: stride)
                    } else {
                        JPEGIDCT.transformDC(block[0], quant: quant[0], output: output, stride: stride)
                    }
                }
                if hasAC { block.update(repeating: 0, count: 64) } else { block[0] = 0 }
            }
        }
        return try reader.endOfScan()
    }

    /// Decodes one block's coefficients (natural order) into `block`, which must be zero.
    /// - Returns: whether any AC coefficient is nonzero (otherwise the block is flat).
    @inline(__always)
    static func decodeBlock(
        _ reader: inout JPEGBitReader, dc: JPEGHuffmanLookup, ac: JPEGHuffmanLookup, predictor: inout Int,
        into block: UnsafeMutablePointer<Int32>, natural: UnsafePointer<Int>
    ) throws(JPEGError) -> Bool {
        let category = try reader.decode(dc)
        if category > 0 { predictor &+= reader.receiveExtend(category) }
        block[0] = Int32(truncatingIfNeeded: predictor)
        var k = 1
        while k < 64 {
            // Most coefficients: code and value in one lookup.
            let fast = ac.fastAC[reader.peek(JPEGHuffmanTable.fastBits)]
            if fast != 0 {
                reader.skip(Int(fast & 0xFF))
                k += Int((fast >> 8) & 0xF)
                guard k < 64 else { throw .invalidCoefficient(offset: reader.position) }
                block[natural[k]] = fast >> 16
                k += 1
                continue
            }
            let symbol = try reader.decode(ac)
            let run = symbol >> 4, size = symbol & 15
            if size == 0 {
                if run != 15 { break }  // EOB
                k += 16  // ZRL: sixteen zeros
                continue
            }
            k += run
            guard k < 64 else { throw .invalidCoefficient(offset: reader.position) }
            block[natural[k]] = Int32(truncatingIfNeeded: reader.receiveExtend(size))
            k += 1
        }
        return k > 1
    }

    /// Reads past one block of a component whose samples are not needed.
    @inline(__always)
    static func skipBlock(_ reader: inout JPEGBitReader, dc: JPEGHuffmanLookup, ac: JPEGHuffmanLookup, predictor: inout Int) throws(JPEGError) {
        let category = try reader.decode(dc)
        if category > 0 { predictor &+= reader.receiveExtend(category) }
        var k = 1
        while k < 64 {
            let fast = ac.fastAC[reader.peek(JPEGHuffmanTable.fastBits)]
            if fast != 0 {
                reader.skip(Int(fast & 0xFF))
                k += Int((fast >> 8) & 0xF) + 1
                continue
            }
            let symbol = try reader.decode(ac)
            let run = symbol >> 4, size = symbol & 15
            if size == 0 {
                if run != 15 { break }
                k += 16
                continue
            }
            k += run + 1
            _ = reader.bits(size)
        }
        guard k <= 64 else { throw .invalidCoefficient(offset: reader.position) }
    }
}
