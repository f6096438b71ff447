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
        // Horizontal sums of three (at most 765: two bytes each), then vertical sums of those.
        var rows = [UInt16](repeating: 0, count: width * height)
        var out = [UInt8](repeating: 255, count: width * height)
        image.pixels.withUnsafeBufferPointer { src in
            for y in 0..<height {
                let r = y * width
                for x in 0..<width {
                    let left = x > 0 ? Int(src[r + x - 1]) : Int(src[r + x])
                    let right = x < width - 1 ? Int(src[r + x + 1]) : Int(src[r + x])
                    rows[r + x] = UInt16(left + Int(src[r + x]) + right)
                }
            }
        }
        for y in 0..<height {
            let up = y > 0 ? y - 1 : y, down = y < height - 1 ? y + 1 : y
            for x in 0..<width {
                let sum = Int(rows[up * width + x]) + Int(rows[y * width + x]) + Int(rows[down * width + x])
                out[y * width + x] = UInt8((sum + 4) / 9)
            }
        }
        return GrayImage(unchecked: width, height: height, pixels: out)
    }
}

extension GrayImage {
    /// The least whole factor that makes a `width` × `height` image at most `pixels` pixels
    /// when each side is divided by it (rounding up): 1 when it fits already.
    public static func reduction(width: Int, height: Int, toAtMost pixels: Int) -> Int {
        guard pixels > 0 else { return max(width, height, 1) }
        var factor = 1
        while ((width + factor - 1) / factor) * ((height + factor - 1) / factor) > pixels { factor += 1 }
        return factor
    }

    /// The image made `factor` times smaller on each side, each pixel the rounded mean of a
    /// `factor` × `factor` block (fewer at the right and bottom edges); itself for 1.
    public func reduced(by factor: Int) -> GrayImage {
        guard factor > 1 else { return self }
        let outWidth = (width + factor - 1) / factor, outHeight = (height + factor - 1) / factor
        var sums = [UInt32](repeating: 0, count: outWidth)
        var out = [UInt8](repeating: 255, count: outWidth * outHeight)
        pixels.withUnsafeBufferPointer { src in
            for oy in 0..<outHeight {
                for i in 0..<outWidth { sums[i] = 0 }
                let rows = min(factor, height - oy * factor)
                for y in (oy * factor)..<(oy * factor + rows) {
                    let r = y * width
                    for x in 0..<width { sums[x / factor] &+= UInt32(src[r + x]) }
                }
                for ox in 0..<outWidth {
                    let count = UInt32(rows * min(factor, width - ox * factor))
                    out[oy * outWidth + ox] = UInt8((sums[ox] + count / 2) / count)
                }
            }
        }
        return GrayImage(unchecked: outWidth, height: outHeight, pixels: out)
    }
}
