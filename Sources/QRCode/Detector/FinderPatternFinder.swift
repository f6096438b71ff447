/// Finds finder pattern centres: runs of dark, light, dark, light, dark in the ratio
/// 1:1:3:1:1 along a row, confirmed along the column and the diagonal through the
/// same centre so that text and noise rarely pass.
struct FinderPatternFinder {
    private let bits: UnsafeBufferPointer<UInt8>
    private let width: Int
    private let height: Int
    private(set) var candidates: [FinderPattern] = []

    /// Caps the candidate list so a noisy image cannot grow it without bound.
    private static let maxCandidates = 400

    init(bits: UnsafeBufferPointer<UInt8>, width: Int, height: Int) {
        self.bits = bits
        self.width = width
        self.height = height
    }

    /// Scans every row and returns centres confirmed by at least `minimumCount` rows.
    static func find(in image: BinaryImage, minimumCount: Int = 2) -> [FinderPattern] {
        image.bits.withUnsafeBufferPointer { bits in
            var finder = FinderPatternFinder(bits: bits, width: image.width, height: image.height)
            finder.scan()
            return finder.candidates.filter { $0.count >= minimumCount }
        }
    }

    @inline(__always)
    private func black(_ x: Int, _ y: Int) -> Bool { bits[y * width + x] != 0 }

    private mutating func scan() {
        var counts = [Int](repeating: 0, count: 5)
        for y in 0..<height {
            for i in 0..<5 { counts[i] = 0 }
            var state = 0
            var x = 0
            while x < width {
                if black(x, y) {
                    if state & 1 == 1 { state += 1 }
                    counts[state] += 1
                } else if state & 1 == 0 {
                    if state == 4 {
                        if Self.isFinderRatio(counts) && handleCandidate(counts, y: y, endX: x) {
                            for i in 0..<5 { counts[i] = 0 }
                            state = 0
                            continue
                        }
                        // Keep the last dark-light-dark as the start of the next attempt.
                        counts[0] = counts[2]; counts[1] = counts[3]; counts[2] = counts[4]
                        counts[3] = 1; counts[4] = 0
                        state = 3
                    } else {
                        state += 1
                        counts[state] += 1
                    }
                } else {
                    counts[state] += 1
                }
                x += 1
            }
            if state == 4 && Self.isFinderRatio(counts) { _ = handleCandidate(counts, y: y, endX: width) }
        }
    }

    static func isFinderRatio(_ c: [Int]) -> Bool {
        let total = c[0] + c[1] + c[2] + c[3] + c[4]
        guard total >= 7, c[0] > 0, c[1] > 0, c[2] > 0, c[3] > 0, c[4] > 0 else { return false }
        let module = Double(total) / 7
        let variance = module / 2
        return abs(module - Double(c[0])) < variance && abs(module - Double(c[1])) < variance
            && abs(3 * module - Double(c[2])) < 3 * variance
            && abs(module - Double(c[3])) < variance && abs(module - Double(c[4])) < variance
    }

    private static func isDiagonalRatio(_ c: [Int]) -> Bool {
        let total = c[0] + c[1] + c[2] + c[3] + c[4]
        guard total >= 7, c[0] > 0, c[1] > 0, c[2] > 0, c[3] > 0, c[4] > 0 else { return false }
        let module = Double(total) / 7
        let variance = module / 1.333
        return abs(module - Double(c[0])) < variance && abs(module - Double(c[1])) < variance
            && abs(3 * module - Double(c[2])) < 3 * variance
            && abs(module - Double(c[3])) < variance && abs(module - Double(c[4])) < variance
    }

    private static func centerFromEnd(_ c: [Int], end: Int) -> Double {
        Double(end - c[4] - c[3]) - Double(c[2]) / 2
    }

    private mutating func handleCandidate(_ counts: [Int], y: Int, endX: Int) -> Bool {
        let total = counts.reduce(0, +)
        let centerX = Self.centerFromEnd(counts, end: endX)
        guard let centerY = crossCheck(startX: Int(centerX), startY: y, dx: 0, dy: 1, maxCount: counts[2], originalTotal: total),
              let refinedX = crossCheck(startX: Int(centerX), startY: Int(centerY), dx: 1, dy: 0, maxCount: counts[2], originalTotal: total),
              diagonalCheck(x: Int(refinedX), y: Int(centerY))
        else { return false }
        let moduleSize = Double(total) / 7
        if let index = candidates.firstIndex(where: { $0.matches(x: refinedX, y: centerY, moduleSize: moduleSize) }) {
            candidates[index] = candidates[index].merged(x: refinedX, y: centerY, moduleSize: moduleSize)
        } else if candidates.count < Self.maxCandidates {
            candidates.append(FinderPattern(x: refinedX, y: centerY, moduleSize: moduleSize, count: 1))
        }
        return true
    }

    /// Counts the five runs along direction (dx, dy) through (startX, startY) and returns
    /// the refined centre coordinate along that direction, or nil if the ratios fail.
    private func crossCheck(startX: Int, startY: Int, dx: Int, dy: Int, maxCount: Int, originalTotal: Int) -> Double? {
        guard startX >= 0, startX < width, startY >= 0, startY < height else { return nil }
        var c = [0, 0, 0, 0, 0]
        let limit = dy != 0 ? height : width
        func at(_ i: Int) -> Bool { dy != 0 ? black(startX, i) : black(i, startY) }
        let start = dy != 0 ? startY : startX
        var i = start
        while i >= 0 && at(i) { c[2] += 1; i -= 1 }
        if i < 0 { return nil }
        while i >= 0 && !at(i) && c[1] <= maxCount { c[1] += 1; i -= 1 }
        if i < 0 || c[1] > maxCount { return nil }
        while i >= 0 && at(i) && c[0] <= maxCount { c[0] += 1; i -= 1 }
        if c[0] > maxCount { return nil }
        i = start + 1
        while i < limit && at(i) { c[2] += 1; i += 1 }
        if i == limit { return nil }
        while i < limit && !at(i) && c[3] < maxCount { c[3] += 1; i += 1 }
        if i == limit || c[3] >= maxCount { return nil }
        while i < limit && at(i) && c[4] < maxCount { c[4] += 1; i += 1 }
        if c[4] >= maxCount { return nil }
        let total = c.reduce(0, +)
        // The perpendicular sighting must be about as long as the original one.
        if 5 * abs(total - originalTotal) >= 2 * originalTotal { return nil }
        return Self.isFinderRatio(c) ? Self.centerFromEnd(c, end: i) : nil
    }

    /// Checks the 1:1:3:1:1 runs along the down-right diagonal through a centre.
    private func diagonalCheck(x: Int, y: Int) -> Bool {
        var c = [0, 0, 0, 0, 0]
        var i = 0
        while x >= i && y >= i && black(x - i, y - i) { c[2] += 1; i += 1 }
        if c[2] == 0 { return false }
        while x >= i && y >= i && !black(x - i, y - i) { c[1] += 1; i += 1 }
        if c[1] == 0 { return false }
        while x >= i && y >= i && black(x - i, y - i) { c[0] += 1; i += 1 }
        if c[0] == 0 { return false }
        i = 1
        while x + i < width && y + i < height && black(x + i, y + i) { c[2] += 1; i += 1 }
        while x + i < width && y + i < height && !black(x + i, y + i) { c[3] += 1; i += 1 }
        if c[3] == 0 { return false }
        while x + i < width && y + i < height && black(x + i, y + i) { c[4] += 1; i += 1 }
        if c[4] == 0 { return false }
        return Self.isDiagonalRatio(c)
    }
}
