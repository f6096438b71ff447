/// Turns luminance into black and white.
///
/// The main method is local: each 8×8 block gets a threshold from the average of the
/// 5×5 blocks around it, so shadows and uneven lighting do not swallow modules (the
/// approach of ZXing's HybridBinarizer). Flat blocks, which carry no edge, borrow their
/// neighbours' level instead of inventing one from noise.
enum Binarizer {
    private static let blockPower = 3
    private static let blockSize = 1 << blockPower
    private static let minDynamicRange = 24

    static func local(_ image: GrayImage) -> BinaryImage {
        let width = image.width, height = image.height
        guard width >= blockSize * 5, height >= blockSize * 5 else { return global(image) }
        let subWidth = (width + blockSize - 1) >> blockPower
        let subHeight = (height + blockSize - 1) >> blockPower
        var blackPoints = [Int](repeating: 0, count: subWidth * subHeight)
        var bits = [UInt8](repeating: 0, count: width * height)

        image.pixels.withUnsafeBufferPointer { pixels in
            for by in 0..<subHeight {
                let yOffset = Swift.min(by << blockPower, height - blockSize)
                for bx in 0..<subWidth {
                    let xOffset = Swift.min(bx << blockPower, width - blockSize)
                    var sum = 0, minimum = 255, maximum = 0
                    for yy in 0..<blockSize {
                        let row = (yOffset + yy) * width + xOffset
                        for xx in 0..<blockSize {
                            let p = Int(pixels[row + xx])
                            sum += p
                            if p < minimum { minimum = p }
                            if p > maximum { maximum = p }
                        }
                    }
                    var average = sum >> (2 * blockPower)
                    if maximum - minimum <= minDynamicRange {
                        // A flat block: assume it is background unless its neighbours say it is darker.
                        average = minimum / 2
                        if by > 0 && bx > 0 {
                            let neighbours = (blackPoints[(by - 1) * subWidth + bx] + 2 * blackPoints[by * subWidth + bx - 1]
                                + blackPoints[(by - 1) * subWidth + bx - 1]) / 4
                            if minimum < neighbours { average = neighbours }
                        }
                    }
                    blackPoints[by * subWidth + bx] = average
                }
            }

            bits.withUnsafeMutableBufferPointer { out in
                for by in 0..<subHeight {
                    let yOffset = Swift.min(by << blockPower, height - blockSize)
                    let top = Swift.min(Swift.max(by, 2), subHeight - 3)
                    for bx in 0..<subWidth {
                        let xOffset = Swift.min(bx << blockPower, width - blockSize)
                        let left = Swift.min(Swift.max(bx, 2), subWidth - 3)
                        var sum = 0
                        for z in -2...2 {
                            let row = (top + z) * subWidth + left
                            sum += blackPoints[row - 2] + blackPoints[row - 1] + blackPoints[row] + blackPoints[row + 1] + blackPoints[row + 2]
                        }
                        let threshold = sum / 25
                        for yy in 0..<blockSize {
                            let row = (yOffset + yy) * width + xOffset
                            for xx in 0..<blockSize where Int(pixels[row + xx]) <= threshold {
                                out[row + xx] = 1
                            }
                        }
                    }
                }
            }
        }
        return BinaryImage(width: width, height: height, bits: bits)
    }

    /// One threshold for the whole image, chosen by Otsu's method; for small images and as
    /// a second opinion when the local method finds nothing.
    static func global(_ image: GrayImage) -> BinaryImage {
        var histogram = [Int](repeating: 0, count: 256)
        for p in image.pixels { histogram[Int(p)] += 1 }
        let total = image.pixels.count
        var sumAll = 0.0
        for i in 0..<256 { sumAll += Double(i * histogram[i]) }
        var sumBackground = 0.0, weightBackground = 0
        var best = 0.0, threshold = 127
        for t in 0..<256 {
            weightBackground += histogram[t]
            if weightBackground == 0 { continue }
            let weightForeground = total - weightBackground
            if weightForeground == 0 { break }
            sumBackground += Double(t * histogram[t])
            let meanBackground = sumBackground / Double(weightBackground)
            let meanForeground = (sumAll - sumBackground) / Double(weightForeground)
            let between = Double(weightBackground) * Double(weightForeground) * (meanBackground - meanForeground) * (meanBackground - meanForeground)
            if between > best {
                best = between
                threshold = t
            }
        }
        let bits = image.pixels.map { Int($0) <= threshold ? UInt8(1) : 0 }
        return BinaryImage(width: image.width, height: image.height, bits: bits)
    }
}
