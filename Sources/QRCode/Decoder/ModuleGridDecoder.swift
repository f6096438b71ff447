/// Decodes a square grid of sampled modules: format and version information, unmasking,
/// de-interleaving, Reed–Solomon correction and segment parsing.
enum ModuleGridDecoder {
    /// Decodes `modules` (row-major, true = dark) of a `size` × `size` grid as it stands.
    static func decode(_ modules: [Bool], size: Int) throws(QRDecodeError) -> DecodedQR {
        guard let gridVersion = QRVersion(size: size), modules.count == size * size else { throw .invalidSize(size) }
        func bit(_ x: Int, _ y: Int) -> Int { modules[y * size + x] ? 1 : 0 }

        var first = 0, second = 0
        for i in 0..<15 {
            let a = FormatInformation.primaryPosition(bit: i)
            let b = FormatInformation.secondaryPosition(bit: i, size: size)
            first |= bit(a.x, a.y) << i
            second |= bit(b.x, b.y) << i
        }
        guard let format = FormatInformation.decode(first, second)?.info else { throw .formatInformationUnreadable }

        if gridVersion.number >= 7 {
            var bottomLeft = 0, topRight = 0
            for i in 0..<18 {
                let p = VersionInformation.bottomLeftPosition(bit: i, size: size)
                bottomLeft |= bit(p.x, p.y) << i
                topRight |= bit(p.y, p.x) << i
            }
            let candidates = [VersionInformation.decode(bottomLeft), VersionInformation.decode(topRight)].compactMap { $0 }
            // Trust the size when the version blocks are unreadable; reject only a clear contradiction.
            if let best = candidates.min(by: { $0.distance < $1.distance }), best.version != gridVersion {
                throw .versionMismatch(read: best.version.number, gridSize: size)
            }
        }
        let version = gridVersion
        let layout = version.blockLayout(level: format.level)
        let order = FunctionPatterns(version: version).dataModuleOrder

        var codewords = [UInt8](repeating: 0, count: layout.totalCodewords)
        for i in 0..<(layout.totalCodewords * 8) {
            let index = order[i]
            let x = index % size, y = index / size
            var dark = modules[index]
            if DataMask.isInverted(mask: format.mask, x: x, y: y) { dark.toggle() }
            if dark { codewords[i >> 3] |= 0x80 >> UInt8(i & 7) }
        }

        var data: [UInt8] = []
        data.reserveCapacity(layout.dataCodewordCount)
        var corrected = 0
        for block in 0..<layout.blockCount {
            let dataCount = layout.dataCount(ofBlock: block)
            var blockBytes = (0..<(dataCount + layout.eccCodewordsPerBlock)).map {
                codewords[layout.interleavedIndex(block: block, indexInBlock: $0)]
            }
            do {
                corrected += try ReedSolomonDecoder.correct(&blockBytes, eccCount: layout.eccCodewordsPerBlock)
            } catch {
                throw .tooManyErrors(block: block, blockCount: layout.blockCount)
            }
            data += blockBytes[0..<dataCount]
        }

        var parser = BitstreamParser(bytes: data, version: version)
        let segments = try parser.parse()
        let text = segments.compactMap { $0.mode == .eci ? nil : $0.text }.joined()
        let s = Double(size)
        let corners = QRCorners(topLeft: QRPoint(x: 0, y: 0), topRight: QRPoint(x: s, y: 0),
                                bottomRight: QRPoint(x: s, y: s), bottomLeft: QRPoint(x: 0, y: s))
        return DecodedQR(text: text, segments: segments, version: version, level: format.level, mask: format.mask,
                         correctedErrors: corrected, position: corners, mirrored: false)
    }

    /// The grid reflected about its main diagonal — what a mirrored symbol samples to.
    static func transposed(_ modules: [Bool], size: Int) -> [Bool] {
        var result = modules
        for y in 0..<size {
            for x in 0..<size { result[x * size + y] = modules[y * size + x] }
        }
        return result
    }
}
