/// Encodes segments into a QR symbol following ISO/IEC 18004.
public enum QREncoder {
    /// Encodes `segments` in the smallest version within `minVersion...maxVersion` that holds
    /// them at exactly `level` (the level is never raised).
    ///
    /// - Parameters:
    ///   - segments: the data, in order.
    ///   - level: the error correction level to use.
    ///   - minVersion: smallest version number to consider (1...40).
    ///   - maxVersion: largest version number to consider (1...40).
    ///   - mask: a fixed mask 0...7, or nil to pick the mask with the lowest penalty
    ///     (ties go to the lowest mask number).
    /// - Throws: `QREncodingError.dataTooLong` naming the bits needed and the bits that fit.
    public static func encode(
        segments: [QRSegment],
        level: QRErrorCorrectionLevel,
        minVersion: Int = 1,
        maxVersion: Int = 40,
        mask: Int? = nil
    ) throws -> QRMatrix {
        guard (1...40).contains(minVersion), (1...40).contains(maxVersion), minVersion <= maxVersion else {
            throw QREncodingError.invalidVersionRange(min: minVersion, max: maxVersion)
        }
        if let mask, !(0...7).contains(mask) { throw QREncodingError.invalidMask(mask) }

        var chosen: (version: QRVersion, bits: Int)?
        var lastNeeded = 0
        for number in minVersion...maxVersion {
            let version = QRVersion(unchecked: number)
            let capacity = version.dataCodewordCount(level: level) * 8
            guard let needed = totalBits(segments, version: version) else {
                lastNeeded = Int.max
                continue
            }
            lastNeeded = needed
            if needed <= capacity {
                chosen = (version, needed)
                break
            }
        }
        guard let chosen else {
            let version = QRVersion(unchecked: maxVersion)
            let needed = lastNeeded == Int.max ? overflowBitEstimate(segments, version: version) : lastNeeded
            throw QREncodingError.dataTooLong(
                neededBits: needed,
                capacityBits: version.dataCodewordCount(level: level) * 8,
                level: level,
                maxVersion: maxVersion
            )
        }

        let codewords = dataCodewords(segments, version: chosen.version, level: level)
        let interleaved = addErrorCorrection(codewords, version: chosen.version, level: level)
        return place(interleaved, version: chosen.version, level: level, mask: mask)
    }

    /// Encodes `text` in the most compact single mode (see `QRSegment.segments(for:)`),
    /// marking non-ASCII text as UTF-8 with an ECI designator.
    public static func encode(text: String, level: QRErrorCorrectionLevel, mask: Int? = nil) throws -> QRMatrix {
        try encode(segments: QRSegment.segments(for: text), level: level, mask: mask)
    }

    private static func totalBits(_ segments: [QRSegment], version: QRVersion) -> Int? {
        var sum = 0
        for segment in segments {
            guard let bits = segment.bitLength(version: version) else { return nil }
            sum += bits
        }
        return sum
    }

    /// Bit count reported when a segment's character count overflows its indicator, so the
    /// error still says how much was needed.
    private static func overflowBitEstimate(_ segments: [QRSegment], version: QRVersion) -> Int {
        segments.reduce(0) { sum, segment in
            let countBits = segment.mode.characterCountBits(version: version)
            switch segment.mode {
            case .numeric: return sum + 4 + countBits + segment.data.count * 10 / 3
            case .alphanumeric: return sum + 4 + countBits + segment.data.count * 11 / 2
            case .byte: return sum + 4 + countBits + segment.data.count * 8
            case .kanji: return sum + 4 + countBits + segment.data.count / 2 * 13
            case .eci: return sum + 28
            }
        }
    }

    /// Segments, terminator, zero padding to a byte and the 0xEC/0x11 pad codewords.
    static func dataCodewords(_ segments: [QRSegment], version: QRVersion, level: QRErrorCorrectionLevel) -> [UInt8] {
        let capacityBits = version.dataCodewordCount(level: level) * 8
        var buffer = BitBuffer()
        for segment in segments { segment.write(to: &buffer, version: version) }
        buffer.append(0, bits: Swift.min(4, capacityBits - buffer.count))
        buffer.append(0, bits: (8 - buffer.count % 8) % 8)
        var bytes = buffer.bytes
        var pad: UInt8 = 0xEC
        while bytes.count * 8 < capacityBits {
            bytes.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return bytes
    }

    /// Splits data into blocks, appends each block's ECC and interleaves them.
    static func addErrorCorrection(_ data: [UInt8], version: QRVersion, level: QRErrorCorrectionLevel) -> [UInt8] {
        let layout = version.blockLayout(level: level)
        let encoder = ReedSolomonEncoder(degree: layout.eccCodewordsPerBlock)
        var result = [UInt8](repeating: 0, count: layout.totalCodewords)
        var offset = 0
        for block in 0..<layout.blockCount {
            let count = layout.dataCount(ofBlock: block)
            let slice = data[offset..<(offset + count)]
            for (i, byte) in slice.enumerated() {
                result[layout.interleavedIndex(block: block, indexInBlock: i)] = byte
            }
            let ecc = encoder.remainder(of: slice)
            for (i, byte) in ecc.enumerated() {
                result[layout.interleavedIndex(block: block, indexInBlock: count + i)] = byte
            }
            offset += count
        }
        return result
    }

    /// Draws function patterns and codewords, then applies the given or best mask.
    static func place(_ codewords: [UInt8], version: QRVersion, level: QRErrorCorrectionLevel, mask: Int?) -> QRMatrix {
        let patterns = FunctionPatterns(version: version)
        let size = version.size
        var unmasked = patterns.dark
        let order = patterns.dataModuleOrder
        for (i, index) in order.enumerated() where i < codewords.count * 8 {
            unmasked[index] = (codewords[i >> 3] >> (7 - UInt8(i & 7))) & 1 != 0
        }
        if version.number >= 7 {
            let bits = VersionInformation.bits(for: version.number)
            for i in 0..<18 {
                let position = VersionInformation.bottomLeftPosition(bit: i, size: size)
                let dark = (bits >> i) & 1 != 0
                unmasked[position.y * size + position.x] = dark
                unmasked[position.x * size + position.y] = dark
            }
        }

        func masked(_ mask: Int) -> [Bool] {
            var grid = unmasked
            for index in order where DataMask.isInverted(mask: mask, x: index % size, y: index / size) {
                grid[index].toggle()
            }
            let bits = FormatInformation(level: level, mask: mask).bits
            for i in 0..<15 {
                let dark = (bits >> i) & 1 != 0
                let a = FormatInformation.primaryPosition(bit: i)
                let b = FormatInformation.secondaryPosition(bit: i, size: size)
                grid[a.y * size + a.x] = dark
                grid[b.y * size + b.x] = dark
            }
            return grid
        }

        if let mask {
            return QRMatrix(version: version, level: level, mask: mask, modules: masked(mask))
        }
        var best: (mask: Int, penalty: Int, grid: [Bool])?
        for candidate in 0..<8 {
            let grid = masked(candidate)
            let penalty = MaskPenalty.score(grid, size: size)
            if best == nil || penalty < best!.penalty { best = (candidate, penalty, grid) }
        }
        return QRMatrix(version: version, level: level, mask: best!.mask, modules: best!.grid)
    }
}
