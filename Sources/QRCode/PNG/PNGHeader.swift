/// The validated contents of an IHDR chunk.
struct PNGHeader: Sendable {
    let width: Int
    let height: Int
    let bitDepth: Int
    let colorType: Int
    let interlaced: Bool

    init(_ bytes: ArraySlice<UInt8>) throws(PNGError) {
        let b = Array(bytes)
        let width = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
        let height = Int(b[4]) << 24 | Int(b[5]) << 16 | Int(b[6]) << 8 | Int(b[7])
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw .invalidDimensions(width: width, height: height)
        }
        let bitDepth = Int(b[8]), colorType = Int(b[9])
        let allowed: [Int]
        switch colorType {
        case 0: allowed = [1, 2, 4, 8, 16]
        case 3: allowed = [1, 2, 4, 8]
        case 2, 4, 6: allowed = [8, 16]
        default: allowed = []
        }
        guard allowed.contains(bitDepth) else { throw .invalidColorTypeAndBitDepth(colorType: colorType, bitDepth: bitDepth) }
        guard b[10] == 0 else { throw .unsupportedCompressionMethod(Int(b[10])) }
        guard b[11] == 0 else { throw .unsupportedFilterMethod(Int(b[11])) }
        guard b[12] <= 1 else { throw .unsupportedInterlaceMethod(Int(b[12])) }
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.colorType = colorType
        interlaced = b[12] == 1
    }

    var channels: Int {
        switch colorType {
        case 2: return 3
        case 4: return 2
        case 6: return 4
        default: return 1
        }
    }

    var bitsPerPixel: Int { channels * bitDepth }

    /// Bytes to step back for the filters' "left" neighbour: at least one.
    var filterStride: Int { Swift.max(1, bitsPerPixel / 8) }

    func rowBytes(width: Int) -> Int { (width * bitsPerPixel + 7) / 8 }

    /// The reduced images: one full pass, or the seven Adam7 passes (empty ones included).
    var passes: [Adam7Pass] {
        guard interlaced else { return [Adam7Pass(index: 0, x0: 0, y0: 0, dx: 1, dy: 1, imageWidth: width, imageHeight: height)] }
        return Adam7Pass.adam7.enumerated().map { i, p in
            Adam7Pass(index: i + 1, x0: p.x0, y0: p.y0, dx: p.dx, dy: p.dy, imageWidth: width, imageHeight: height)
        }
    }

    /// Total filtered bytes IDAT must inflate to.
    var expectedDataSize: Int {
        passes.reduce(0) { sum, pass in
            pass.width == 0 || pass.height == 0 ? sum : sum + pass.height * (1 + rowBytes(width: pass.width))
        }
    }
}
