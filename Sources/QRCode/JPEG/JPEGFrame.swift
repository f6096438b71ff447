/// The frame header (SOF0/1/2, T.81 B.2.2) and the block geometry it implies.
struct JPEGFrame {
    /// The coding processes this decoder implements.
    enum Kind {
        case baseline, extendedSequential, progressive
    }

    /// One image component and its place in the MCU.
    struct Component {
        let id: Int
        /// Horizontal and vertical sampling factors, 1...4.
        let h: Int, v: Int
        let quantizationTable: Int
        /// Samples per line and lines of this component (T.81 A.1.1).
        let width: Int, height: Int
        /// Blocks covering the component; a non-interleaved scan codes exactly these.
        let blocksWide: Int, blocksHigh: Int
        /// Blocks including the MCU padding that interleaved scans code.
        let paddedBlocksWide: Int, paddedBlocksHigh: Int
    }

    let kind: Kind
    let width: Int, height: Int
    let components: [Component]
    let maxH: Int, maxV: Int
    /// MCUs per row and column of an interleaved scan.
    let mcusWide: Int, mcusHigh: Int

    /// The component whose samples are returned: the first (Y in JFIF/YCbCr, the only one in grayscale).
    var luma: Component { components[0] }

    /// Parses an SOF body `bytes[start..<end]` (`offset` is the marker's, for errors) and checks
    /// it against `limits` before any pixel memory exists.
    init(kind: Kind, bytes: [UInt8], start: Int, end: Int, offset: Int, limits: JPEGDecoder.Limits, adobeTransform: Int?) throws(JPEGError) {
        guard end - start >= 6 else { throw .invalidSegmentLength(marker: bytes[offset + 1], length: end - start + 2, offset: offset) }
        let precision = Int(bytes[start])
        guard precision == 8 else { throw .unsupportedPrecision(bits: precision, offset: offset) }
        let height = Int(bytes[start + 1]) << 8 | Int(bytes[start + 2])
        let width = Int(bytes[start + 3]) << 8 | Int(bytes[start + 4])
        let count = Int(bytes[start + 5])
        guard end - start == 6 + 3 * count else { throw .invalidSegmentLength(marker: bytes[offset + 1], length: end - start + 2, offset: offset) }
        // Height 0 means "given later by a DNL marker", which no camera writes; refused as a size.
        guard width > 0, height > 0 else { throw .invalidDimensions(width: width, height: height) }
        guard width <= limits.maxDimension, height <= limits.maxDimension, width * height <= limits.maxPixels else {
            throw .imageTooLarge(width: width, height: height, limits: limits)
        }
        // Luminance is one stored component only for grayscale and YCbCr; RGB and CMYK/YCCK
        // would need every component decoded and converted, which a QR reader does not need.
        guard count == 1 || count == 3, !(count == 3 && adobeTransform == 0) else {
            throw .unsupportedColorSpace(components: count, adobeTransform: adobeTransform)
        }
        var raw: [(id: Int, h: Int, v: Int, tq: Int)] = []
        for index in 0..<count {
            let base = start + 6 + 3 * index
            let id = Int(bytes[base]), h = Int(bytes[base + 1] >> 4), v = Int(bytes[base + 1] & 0x0F), tq = Int(bytes[base + 2])
            guard (1...4).contains(h), (1...4).contains(v) else { throw .invalidSamplingFactors(component: id, horizontal: h, vertical: v) }
            guard tq <= 3 else { throw .missingQuantizationTable(id: tq, component: id) }
            guard !raw.contains(where: { $0.id == id }) else { throw .duplicateComponent(id: id) }
            raw.append((id, h, v, tq))
        }
        if count == 3, raw.map(\.id) == [0x52, 0x47, 0x42], adobeTransform == nil {
            // Component ids 'R', 'G', 'B' without an Adobe marker: libjpeg's rule for RGB.
            throw .unsupportedColorSpace(components: count, adobeTransform: nil)
        }
        let maxH = raw.map(\.h).max() ?? 1, maxV = raw.map(\.v).max() ?? 1
        let mcusWide = (width + 8 * maxH - 1) / (8 * maxH), mcusHigh = (height + 8 * maxV - 1) / (8 * maxV)
        self.kind = kind
        self.width = width
        self.height = height
        self.maxH = maxH
        self.maxV = maxV
        self.mcusWide = mcusWide
        self.mcusHigh = mcusHigh
        self.components = raw.map { c in
            let w = (width * c.h + maxH - 1) / maxH, h = (height * c.v + maxV - 1) / maxV
            return Component(id: c.id, h: c.h, v: c.v, quantizationTable: c.tq, width: w, height: h,
                             blocksWide: (w + 7) / 8, blocksHigh: (h + 7) / 8,
                             paddedBlocksWide: mcusWide * c.h, paddedBlocksHigh: mcusHigh * c.v)
        }
    }
}
