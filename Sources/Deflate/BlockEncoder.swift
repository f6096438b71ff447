/// Writes one block of LZ77 symbols in whichever of DEFLATE's three block types is smallest:
/// stored, the fixed code, or dynamic codes built for the block.
///
/// A symbol is a `UInt32`: a literal byte (bit 31 clear), or a match with bit 31 set, its length
/// minus 3 in bits 16–23 and its distance (1…32 768) in bits 0–15.
enum BlockEncoder {
    /// The symbol for a match of `length`.
    @inline(__always)
    static func match(length: Int, distance: Int) -> UInt32 {
        1 << 31 | UInt32(length - DeflateFormat.minMatch) << 16 | UInt32(distance)
    }

    /// Length code (0…28, symbol 257 + code) of each match length − 3.
    private static let lengthCode: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 256)
        for code in 0..<28 {
            let base = DeflateFormat.lengthBase[code] - DeflateFormat.minMatch
            for k in 0..<(1 << DeflateFormat.lengthExtraBits[code]) { table[base + k] = UInt8(code) }
        }
        // 258 has a code of its own (285), though 284's extra bits could also say it.
        table[255] = 28
        return table
    }()

    /// Distance code of distance − 1 for distances up to 256, then of (distance − 1) >> 7 at
    /// offset 256 (every code past 15 spans whole multiples of 128), as zlib's `_dist_code`.
    private static let distanceCode: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 512)
        for code in 0..<30 {
            let first = DeflateFormat.distanceBase[code] - 1
            for d in first..<(first + (1 << DeflateFormat.distanceExtraBits[code])) {
                if d < 256 { table[d] = UInt8(code) } else { table[256 + d >> 7] = UInt8(code) }
            }
        }
        return table
    }()

    @inline(__always)
    private static func distanceSymbol(_ distance: Int) -> Int {
        Int(distance <= 256 ? distanceCode[distance - 1] : distanceCode[256 + (distance - 1) >> 7])
    }

    private static let fixedLiteralLengthCodes = HuffmanCodeBuilder.codewords(DeflateFormat.fixedLiteralLengthLengths)
    private static let fixedDistanceLengths = [UInt8](repeating: DeflateFormat.fixedDistanceLength, count: 30)
    private static let fixedDistanceCodes = HuffmanCodeBuilder.codewords(fixedDistanceLengths)

    /// One Huffman code ready for output: codeword (bit-reversed) and length per symbol.
    private struct Code {
        let codewords: [UInt16]
        let lengths: [UInt8]
        init(lengths: [UInt8]) {
            self.lengths = lengths
            codewords = HuffmanCodeBuilder.codewords(lengths)
        }
        init(codewords: [UInt16], lengths: [UInt8]) {
            self.codewords = codewords
            self.lengths = lengths
        }
        /// Bits to send `frequencies` with this code.
        func cost(_ frequencies: [Int]) -> Int {
            var bits = 0
            for (symbol, count) in frequencies.enumerated() { bits += count * Int(lengths[symbol]) }
            return bits
        }
    }

    /// Writes `symbols` as one block. `bytes` are the input bytes the symbols stand for, sent as
    /// they are if a stored block is smallest.
    static func writeBlock(
        symbols: UnsafeBufferPointer<UInt32>, bytes: UnsafePointer<UInt8>?, byteCount: Int, final: Bool, to writer: inout BitWriter
    ) {
        var literalFrequencies = [Int](repeating: 0, count: 286)
        var distanceFrequencies = [Int](repeating: 0, count: 30)
        var extraBits = 0
        for symbol in symbols {
            if symbol & 1 << 31 == 0 {
                literalFrequencies[Int(symbol)] += 1
            } else {
                let length = Int(lengthCode[Int(symbol >> 16 & 0xFF)])
                literalFrequencies[257 + length] += 1
                let distance = distanceSymbol(Int(symbol & 0xFFFF))
                distanceFrequencies[distance] += 1
                extraBits += DeflateFormat.lengthExtraBits[length] + DeflateFormat.distanceExtraBits[distance]
            }
        }
        literalFrequencies[DeflateFormat.endOfBlock] = 1

        let literals = Code(lengths: HuffmanCodeBuilder.lengths(literalFrequencies, limit: DeflateFormat.maxCodeLength))
        let distances = Code(lengths: HuffmanCodeBuilder.lengths(distanceFrequencies, limit: DeflateFormat.maxCodeLength))
        let header = DynamicHeader(literals: literals.lengths, distances: distances.lengths)
        let dynamicBits = 3 + header.bits + literals.cost(literalFrequencies) + distances.cost(distanceFrequencies) + extraBits

        let fixedLiterals = Code(codewords: fixedLiteralLengthCodes, lengths: DeflateFormat.fixedLiteralLengthLengths)
        let fixedDistances = Code(codewords: fixedDistanceCodes, lengths: fixedDistanceLengths)
        let fixedBits = 3 + fixedLiterals.cost(literalFrequencies) + fixedDistances.cost(distanceFrequencies) + extraBits

        let storedBits = bytes == nil && byteCount > 0 ? Int.max : storedCost(byteCount, at: writer.bitCount)
        if storedBits < min(fixedBits, dynamicBits) {
            writeStored(bytes, count: byteCount, final: final, to: &writer)
            return
        }
        writer.write(final ? 1 : 0, bits: 1)
        if fixedBits <= dynamicBits {
            writer.write(1, bits: 2)
            writeSymbols(symbols, literals: fixedLiterals, distances: fixedDistances, to: &writer)
        } else {
            writer.write(2, bits: 2)
            header.write(to: &writer)
            writeSymbols(symbols, literals: literals, distances: distances, to: &writer)
        }
    }

    /// Bits that stored blocks for `count` bytes take when the first header starts at `position`.
    private static func storedCost(_ count: Int, at position: Int) -> Int {
        let blocks = max(1, (count + DeflateFormat.maxStoredBlock - 1) / DeflateFormat.maxStoredBlock)
        let firstHeader = (position + 3 + 7) & ~7 - position
        return firstHeader + (blocks - 1) * 8 + blocks * 32 + count * 8
    }

    /// Writes `count` bytes as stored blocks (at least one, even for no bytes).
    static func writeStored(_ bytes: UnsafePointer<UInt8>?, count: Int, final: Bool, to writer: inout BitWriter) {
        var offset = 0
        repeat {
            let n = min(DeflateFormat.maxStoredBlock, count - offset)
            writer.write(final && offset + n == count ? 1 : 0, bits: 3)
            writer.alignToByte()
            writer.write(UInt32(n) | UInt32(~n & 0xFFFF) << 16, bits: 32)
            writer.appendAligned(UnsafeBufferPointer(start: bytes.map { $0 + offset }, count: n))
            offset += n
        } while offset < count
    }

    private static func writeSymbols(_ symbols: UnsafeBufferPointer<UInt32>, literals: Code, distances: Code, to writer: inout BitWriter) {
        literals.codewords.withUnsafeBufferPointer { literalCodes in
            literals.lengths.withUnsafeBufferPointer { literalLengths in
                distances.codewords.withUnsafeBufferPointer { distanceCodes in
                    distances.lengths.withUnsafeBufferPointer { distanceLengths in
                        for symbol in symbols {
                            if symbol & 1 << 31 == 0 {
                                writer.write(UInt32(literalCodes[Int(symbol)]), bits: Int(literalLengths[Int(symbol)]))
                                continue
                            }
                            let lengthMinus3 = Int(symbol >> 16 & 0xFF)
                            let lengthIndex = Int(lengthCode[lengthMinus3])
                            let lengthBits = Int(literalLengths[257 + lengthIndex])
                            let lengthExtra = UInt32(lengthMinus3 + DeflateFormat.minMatch - DeflateFormat.lengthBase[lengthIndex])
                            writer.write(
                                UInt32(literalCodes[257 + lengthIndex]) | lengthExtra << UInt32(lengthBits),
                                bits: lengthBits + DeflateFormat.lengthExtraBits[lengthIndex])
                            let distance = Int(symbol & 0xFFFF)
                            let distanceIndex = distanceSymbol(distance)
                            let distanceBits = Int(distanceLengths[distanceIndex])
                            let distanceExtra = UInt32(distance - DeflateFormat.distanceBase[distanceIndex])
                            writer.write(
                                UInt32(distanceCodes[distanceIndex]) | distanceExtra << UInt32(distanceBits),
                                bits: distanceBits + DeflateFormat.distanceExtraBits[distanceIndex])
                        }
                        let end = DeflateFormat.endOfBlock
                        writer.write(UInt32(literalCodes[end]), bits: Int(literalLengths[end]))
                    }
                }
            }
        }
    }
}

/// The header of a dynamic block: the two codes' lengths, run-length coded with the code-length
/// code (symbols 0–15 a length, 16 the previous length 3–6 times, 17 and 18 runs of zeros).
private struct DynamicHeader {
    /// Code-length symbols, each with its repeat count's extra bits in bits 8 and up.
    private var symbols: [UInt16] = []
    private let literalCount: Int
    private let distanceCount: Int
    private let lengthCount: Int
    private let code: [UInt8]
    private let codewords: [UInt16]
    /// The header's size after the 3 block-type bits.
    let bits: Int

    private static let repeatExtraBits: [Int] = [2, 3, 7]

    init(literals: [UInt8], distances: [UInt8]) {
        literalCount = max(257, (literals.lastIndex { $0 != 0 } ?? 0) + 1)
        distanceCount = max(1, (distances.lastIndex { $0 != 0 } ?? 0) + 1)
        // Each code is coded on its own, as zlib does: no run crosses from one to the other.
        Self.runLengths(literals[..<literalCount], into: &symbols)
        Self.runLengths(distances[..<distanceCount], into: &symbols)
        var frequencies = [Int](repeating: 0, count: 19)
        for s in symbols { frequencies[Int(s & 0x1F)] += 1 }
        code = HuffmanCodeBuilder.lengths(frequencies, limit: DeflateFormat.maxCodeLengthCodeLength)
        codewords = HuffmanCodeBuilder.codewords(code)
        var count = 19
        while count > 4, code[DeflateFormat.codeLengthOrder[count - 1]] == 0 { count -= 1 }
        lengthCount = count
        var total = 5 + 5 + 4 + 3 * count
        for (symbol, n) in frequencies.enumerated() {
            total += n * (Int(code[symbol]) + (symbol >= 16 ? Self.repeatExtraBits[symbol - 16] : 0))
        }
        bits = total
    }

    private static func runLengths(_ lengths: ArraySlice<UInt8>, into symbols: inout [UInt16]) {
        var i = lengths.startIndex
        while i < lengths.endIndex {
            let length = lengths[i]
            var run = 1
            while i + run < lengths.endIndex, lengths[i + run] == length { run += 1 }
            i += run
            if length == 0 {
                while run >= 11 {
                    let n = min(run, 138)
                    symbols.append(18 | UInt16(n - 11) << 8)
                    run -= n
                }
                if run >= 3 {
                    symbols.append(17 | UInt16(run - 3) << 8)
                    run = 0
                }
            } else {
                symbols.append(UInt16(length))
                run -= 1
                while run >= 3 {
                    let n = min(run, 6)
                    symbols.append(16 | UInt16(n - 3) << 8)
                    run -= n
                }
            }
            symbols.append(contentsOf: repeatElement(UInt16(length), count: run))
        }
    }

    func write(to writer: inout BitWriter) {
        writer.write(UInt32(literalCount - 257), bits: 5)
        writer.write(UInt32(distanceCount - 1), bits: 5)
        writer.write(UInt32(lengthCount - 4), bits: 4)
        for i in 0..<lengthCount { writer.write(UInt32(code[DeflateFormat.codeLengthOrder[i]]), bits: 3) }
        for s in symbols {
            let symbol = Int(s & 0x1F)
            writer.write(UInt32(codewords[symbol]), bits: Int(code[symbol]))
            if symbol >= 16 { writer.write(UInt32(s >> 8), bits: Self.repeatExtraBits[symbol - 16]) }
        }
    }
}
