import Deflate
import Foundation

/// Writes 8-bit grayscale PNGs.
enum PNGEncoder {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func encode(_ image: GrayImage) -> Data {
        var out = signature
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(image.width))
        header.appendBigEndian(UInt32(image.height))
        header += [8, 0, 0, 0, 0]  // bit depth 8, grayscale, deflate, adaptive filtering, no interlace
        appendChunk("IHDR", header, to: &out)
        appendChunk("IDAT", Compress.zlib(filteredRows(image), level: .balanced), to: &out)
        appendChunk("IEND", [], to: &out)
        return Data(out)
    }

    /// Rows that repeat the row above use filter Up (all zeros), which DEFLATE shrinks to
    /// almost nothing; the rest stay unfiltered.
    private static func filteredRows(_ image: GrayImage) -> [UInt8] {
        let width = image.width
        var raw = [UInt8]()
        raw.reserveCapacity((width + 1) * image.height)
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<image.height {
                let row = pixels[(y * width)..<((y + 1) * width)]
                if y > 0 && row.elementsEqual(pixels[((y - 1) * width)..<(y * width)]) {
                    raw.append(2)
                    raw.append(contentsOf: repeatElement(0, count: width))
                } else {
                    raw.append(0)
                    raw.append(contentsOf: row)
                }
            }
        }
        return raw
    }

    static func appendChunk(_ type: String, _ data: [UInt8], to out: inout [UInt8]) {
        out.appendBigEndian(UInt32(data.count))
        let typeAndData = Array(type.utf8) + data
        out += typeAndData
        out.appendBigEndian(CRC32.checksum(typeAndData))
    }
}
