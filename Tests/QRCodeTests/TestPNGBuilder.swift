import Deflate
@testable import QRCode

/// Builds PNG files of any colour type, bit depth, filter mix and interlacing, written
/// straight from the PNG specification so the decoder is tested against an encoder that
/// shares none of its code paths (only CRC and DEFLATE come from the library).
struct TestPNGBuilder {
    var width: Int
    var height: Int
    var colorType: Int
    var bitDepth: Int
    var interlaced = false
    /// Samples per pixel, row-major: `samples[y][x]` holds `channels` values at `bitDepth`.
    var samples: [[[Int]]]
    var palette: [(r: Int, g: Int, b: Int)] = []
    var transparency: [UInt8]? = nil
    /// Use stored DEFLATE blocks instead of compressed ones.
    var stored = false

    var channels: Int { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colorType]! }

    func build() -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var ihdr: [UInt8] = []
        ihdr.appendBigEndian(UInt32(width))
        ihdr.appendBigEndian(UInt32(height))
        ihdr += [UInt8(bitDepth), UInt8(colorType), 0, 0, interlaced ? 1 : 0]
        Self.chunk("IHDR", ihdr, &out)
        if !palette.isEmpty { Self.chunk("PLTE", palette.flatMap { [UInt8($0.r), UInt8($0.g), UInt8($0.b)] }, &out) }
        if let transparency { Self.chunk("tRNS", transparency, &out) }
        Self.chunk("tEXt", Array("Comment\u{0}ancillary chunk to skip".utf8), &out)
        let raw = filteredData()
        let zlib = Compress.zlib(raw, level: stored ? .stored : .balanced)
        // Split the stream over several IDAT chunks to exercise concatenation.
        let third = Swift.max(1, zlib.count / 3)
        var start = 0
        while start < zlib.count {
            let end = Swift.min(zlib.count, start + third)
            Self.chunk("IDAT", Array(zlib[start..<end]), &out)
            start = end
        }
        Self.chunk("IEND", [], &out)
        return out
    }

    static func chunk(_ type: String, _ data: [UInt8], _ out: inout [UInt8]) {
        out.appendBigEndian(UInt32(data.count))
        let body = Array(type.utf8) + data
        out += body
        out.appendBigEndian(CRC32.checksum(body))
    }

    private func filteredData() -> [UInt8] {
        let passes: [(x0: Int, y0: Int, dx: Int, dy: Int)] = interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        var out: [UInt8] = []
        var rowCounter = 0
        for pass in passes {
            let xs = Array(stride(from: pass.x0, to: width, by: pass.dx))
            let ys = Array(stride(from: pass.y0, to: height, by: pass.dy))
            if xs.isEmpty || ys.isEmpty { continue }
            var previous: [UInt8]? = nil
            for y in ys {
                let row = packRow(xs.map { samples[y][$0] })
                let filter = rowCounter % 5
                rowCounter += 1
                out.append(UInt8(filter))
                out += Self.applyFilter(filter, row: row, previous: previous, bpp: Swift.max(1, channels * bitDepth / 8))
                previous = row
            }
        }
        return out
    }

    private func packRow(_ pixels: [[Int]]) -> [UInt8] {
        var bytes: [UInt8] = []
        var accumulator = 0, bits = 0
        for pixel in pixels {
            for sample in pixel {
                if bitDepth == 16 {
                    bytes += [UInt8(sample >> 8), UInt8(sample & 0xFF)]
                } else if bitDepth == 8 {
                    bytes.append(UInt8(sample))
                } else {
                    accumulator = accumulator << bitDepth | sample
                    bits += bitDepth
                    if bits == 8 { bytes.append(UInt8(accumulator)); accumulator = 0; bits = 0 }
                }
            }
        }
        if bits > 0 { bytes.append(UInt8(accumulator << (8 - bits))) }
        return bytes
    }

    static func applyFilter(_ filter: Int, row: [UInt8], previous: [UInt8]?, bpp: Int) -> [UInt8] {
        func left(_ i: Int) -> Int { i >= bpp ? Int(row[i - bpp]) : 0 }
        func up(_ i: Int) -> Int { previous.map { Int($0[i]) } ?? 0 }
        func upLeft(_ i: Int) -> Int { i >= bpp ? (previous.map { Int($0[i - bpp]) } ?? 0) : 0 }
        return row.indices.map { i in
            let x = Int(row[i])
            let predicted: Int
            switch filter {
            case 1: predicted = left(i)
            case 2: predicted = up(i)
            case 3: predicted = (left(i) + up(i)) / 2
            case 4:
                let a = left(i), b = up(i), c = upLeft(i)
                let p = a + b - c
                let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                predicted = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
            default: predicted = 0
            }
            return UInt8((x - predicted) & 0xFF)
        }
    }
}
