/// Smaller copies of an image for a second look at noisy photos.
enum Downsampler {
    /// Each output pixel is the rounded mean of a 2×2 block; an odd last row or column is dropped.
    static func half(_ image: GrayImage) -> GrayImage {
        let width = image.width / 2, height = image.height / 2
        var out = [UInt8](repeating: 255, count: width * height)
        image.pixels.withUnsafeBufferPointer { src in
            for y in 0..<height {
                let top = 2 * y * image.width, bottom = top + image.width
                for x in 0..<width {
                    let sum = Int(src[top + 2 * x]) + Int(src[top + 2 * x + 1]) + Int(src[bottom + 2 * x]) + Int(src[bottom + 2 * x + 1])
                    out[y * width + x] = UInt8((sum + 2) >> 2)
                }
            }
        }
        return GrayImage(unchecked: width, height: height, pixels: out)
    }
}

extension Downsampler {
    /// A 3×3 mean filter (edges use the pixels that exist): sensor noise drops to a third
    /// while modules of three or more pixels keep their shape.
    static func smoothed(_ image: GrayImage) -> GrayImage {
        let width = image.width, height = image.height
        guard width >= 3, height >= 3 else { return image }
        // Horizontal sums of three, then vertical sums of those.
        var rows = [Int](repeating: 0, count: width * height)
        var out = [UInt8](repeating: 255, count: width * height)
        image.pixels.withUnsafeBufferPointer { src in
            for y in 0..<height {
                let r = y * width
                for x in 0..<width {
                    let left = x > 0 ? Int(src[r + x - 1]) : Int(src[r + x])
                    let right = x < width - 1 ? Int(src[r + x + 1]) : Int(src[r + x])
                    rows[r + x] = left + Int(src[r + x]) + right
                }
            }
        }
        for y in 0..<height {
            let up = y > 0 ? y - 1 : y, down = y < height - 1 ? y + 1 : y
            for x in 0..<width {
                let sum = rows[up * width + x] + rows[y * width + x] + rows[down * width + x]
                out[y * width + x] = UInt8((sum + 4) / 9)
            }
        }
        return GrayImage(unchecked: width, height: height, pixels: out)
    }
}
