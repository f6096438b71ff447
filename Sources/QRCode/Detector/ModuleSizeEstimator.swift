/// Estimates module size from the finder patterns themselves: along the line from one
/// finder centre toward another, the dark-light-dark runs out of the centre span 3.5
/// modules each way. Measuring along the symbol's own axes keeps the estimate right at
/// any rotation, unlike the horizontal run lengths found while scanning.
struct ModuleSizeEstimator {
    let image: BinaryImage

    func moduleSize(topLeft: QRPoint, topRight: QRPoint, bottomLeft: QRPoint) -> Double? {
        let a = oneWay(topLeft, topRight), b = oneWay(topLeft, bottomLeft)
        switch (a, b) {
        case let (a?, b?): return (a + b) / 2
        case let (a?, nil): return a
        case let (nil, b?): return b
        default: return nil
        }
    }

    private func oneWay(_ pattern: QRPoint, _ other: QRPoint) -> Double? {
        let m1 = runBothWays(from: pattern, to: other)
        let m2 = runBothWays(from: other, to: pattern)
        switch (m1, m2) {
        case let (m1?, m2?): return (m1 + m2) / 14
        case let (m1?, nil): return m1 / 7
        case let (nil, m2?): return m2 / 7
        default: return nil
        }
    }

    private func runBothWays(from: QRPoint, to: QRPoint) -> Double? {
        let fromX = Int(from.x), fromY = Int(from.y)
        var result = run(fromX, fromY, Int(to.x), Int(to.y))
        // The other way, scaled back so the line stays inside the image.
        var scale = 1.0
        var otherX = fromX - (Int(to.x) - fromX)
        if otherX < 0 {
            scale = Double(fromX) / Double(fromX - otherX)
            otherX = 0
        } else if otherX >= image.width {
            scale = Double(image.width - 1 - fromX) / Double(otherX - fromX)
            otherX = image.width - 1
        }
        var otherY = Int(Double(fromY) - Double(Int(to.y) - fromY) * scale)
        scale = 1.0
        if otherY < 0 {
            scale = Double(fromY) / Double(fromY - otherY)
            otherY = 0
        } else if otherY >= image.height {
            scale = Double(image.height - 1 - fromY) / Double(otherY - fromY)
            otherY = image.height - 1
        }
        otherX = Int(Double(fromX) + Double(otherX - fromX) * scale)
        guard let first = result else { return nil }
        guard let second = run(fromX, fromY, otherX, otherY) else { return nil }
        result = first + second - 1  // the centre pixel was counted twice
        return result
    }

    /// Bresenham walk from the centre: length of the dark, light, dark runs, or nil if the
    /// line ends first.
    private func run(_ fromX0: Int, _ fromY0: Int, _ toX0: Int, _ toY0: Int) -> Double? {
        var fromX = fromX0, fromY = fromY0, toX = toX0, toY = toY0
        let steep = abs(toY - fromY) > abs(toX - fromX)
        if steep {
            swap(&fromX, &fromY)
            swap(&toX, &toY)
        }
        let dx = abs(toX - fromX), dy = abs(toY - fromY)
        var error = -dx / 2
        let xStep = fromX < toX ? 1 : -1, yStep = fromY < toY ? 1 : -1
        var state = 0
        let xLimit = toX + xStep
        var x = fromX, y = fromY
        while x != xLimit {
            let realX = steep ? y : x, realY = steep ? x : y
            guard realX >= 0, realY >= 0, realX < image.width, realY < image.height else { return nil }
            // State 1 looks for the light ring; states 0 and 2 look for dark.
            if (state == 1) == image.isBlack(realX, realY) {
                if state == 2 { return hypot(x - fromX, y - fromY) }
                state += 1
            }
            error += dy
            if error > 0 {
                if y == toY { break }
                y += yStep
                error -= dx
            }
            x += xStep
        }
        if state == 2 { return hypot(toX + xStep - fromX, toY - fromY) }
        return nil
    }

    private func hypot(_ a: Int, _ b: Int) -> Double { Double(a * a + b * b).squareRoot() }
}
