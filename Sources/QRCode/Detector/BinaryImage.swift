/// A thresholded image: one byte per pixel, 1 = black, 0 = white.
struct BinaryImage: Sendable {
    let width: Int
    let height: Int
    var bits: [UInt8]

    @inline(__always)
    func isBlack(_ x: Int, _ y: Int) -> Bool {
        bits[y * width + x] != 0
    }

    /// The image mirrored left to right.
    func mirrored() -> BinaryImage {
        var out = bits
        for y in 0..<height {
            let row = y * width
            for x in 0..<width { out[row + x] = bits[row + width - 1 - x] }
        }
        return BinaryImage(width: width, height: height, bits: out)
    }
}
