/// Locates an alignment pattern near its predicted position by matching the 5×5 template
/// (dark ring, light ring, dark centre) sampled along the symbol's own module axes, so it
/// works at any rotation.
enum AlignmentPatternFinder {
    /// - Parameters:
    ///   - predicted: where the pattern's centre should be.
    ///   - unitX, unitY: one module step along the symbol's rows and columns, in pixels.
    ///   - radius: how far (in modules) from the prediction to search.
    static func find(in image: BinaryImage, predicted: QRPoint, unitX: QRPoint, unitY: QRPoint, radius: Double) -> QRPoint? {
        let moduleSize = (unitX.x * unitX.x + unitX.y * unitX.y).squareRoot()
        let reach = Int((radius * moduleSize).rounded(.up))
        let cx = Int(predicted.x.rounded()), cy = Int(predicted.y.rounded())
        var offsets: [(dx: Double, dy: Double, dark: Bool)] = []
        for v in -2...2 {
            for u in -2...2 {
                offsets.append((Double(u) * unitX.x + Double(v) * unitY.x, Double(u) * unitX.y + Double(v) * unitY.y,
                                Swift.max(abs(u), abs(v)) != 1))
            }
        }
        // 23 of the template's 25 samples must match.
        let minimumScore = 23
        var bestScore = -1
        var best: [(x: Int, y: Int)] = []
        let width = image.width, height = image.height
        image.bits.withUnsafeBufferPointer { bits in
            // Large modules need no single-pixel steps; this keeps the search at a few
            // thousand positions whatever the module size.
            let step = Swift.max(1, Int(moduleSize / 4))
            for y in stride(from: cy - reach, through: cy + reach, by: step) {
                for x in stride(from: cx - reach, through: cx + reach, by: step) {
                    // Only scores of at least max(23, best so far) can matter, so a position stops
                    // being sampled once it has missed more than that allows: on noise most
                    // positions fail within a few samples instead of 25.
                    let allowedMisses = offsets.count - Swift.max(minimumScore, bestScore)
                    var score = 0
                    var misses = 0
                    for o in offsets {
                        let sx = Int((Double(x) + 0.5 + o.dx).rounded(.down)), sy = Int((Double(y) + 0.5 + o.dy).rounded(.down))
                        if sx >= 0, sy >= 0, sx < width, sy < height, (bits[sy * width + sx] != 0) == o.dark {
                            score += 1
                        } else {
                            misses += 1
                            if misses > allowedMisses { break }
                        }
                    }
                    if misses > allowedMisses { continue }
                    if score > bestScore {
                        bestScore = score
                        best = [(x, y)]
                    } else if score == bestScore {
                        best.append((x, y))
                    }
                }
            }
        }
        guard bestScore >= minimumScore,
              let nearest = best.min(by: { abs($0.x - cx) + abs($0.y - cy) < abs($1.x - cx) + abs($1.y - cy) })
        else { return nil }
        // Equally good positions form a small plateau around the true centre; averaging the
        // plateau next to the nearest one gives a sub-pixel estimate without mixing in a
        // look-alike elsewhere in the window.
        let plateau = best.filter { Double(abs($0.x - nearest.x) + abs($0.y - nearest.y)) <= moduleSize }
        let n = Double(plateau.count)
        let center = QRPoint(x: plateau.reduce(0.0) { $0 + Double($1.x) } / n + 0.5,
                             y: plateau.reduce(0.0) { $0 + Double($1.y) } / n + 0.5)
        return center
    }
}
