/// The penalty score of ISO/IEC 18004 §7.8.3 for a finished (masked) symbol:
/// lower means fewer features that confuse readers.
enum MaskPenalty {
    static let runWeight = 3
    static let blockWeight = 3
    static let finderLikeWeight = 40
    static let balanceWeight = 10

    static func score(_ modules: [Bool], size: Int) -> Int {
        modules.withUnsafeBufferPointer { grid in
            var penalty = 0
            var dark = 0
            // Rules 1 and 3 look at rows and columns alike: stride 1 walks a row, stride `size` a column.
            for line in 0..<size {
                penalty += linePenalty(grid, start: line * size, stride: 1, count: size)
                penalty += linePenalty(grid, start: line, stride: size, count: size)
            }
            // Rule 2: every 2×2 block of one colour.
            for y in 0..<(size - 1) {
                for x in 0..<(size - 1) {
                    let c = grid[y * size + x]
                    if c == grid[y * size + x + 1] && c == grid[(y + 1) * size + x] && c == grid[(y + 1) * size + x + 1] {
                        penalty += blockWeight
                    }
                }
            }
            // Rule 4: 10 points per full 5% step away from half dark.
            for value in grid where value { dark += 1 }
            let total = size * size
            penalty += abs(dark * 20 - total * 10) / total * balanceWeight
            return penalty
        }
    }

    /// Rule 1 (runs of five or more) and rule 3 (1:1:3:1:1 finder-like patterns beside four
    /// light modules) along one row or column.
    @inline(__always)
    static func linePenalty(_ grid: UnsafeBufferPointer<Bool>, start: Int, stride: Int, count: Int) -> Int {
        var penalty = 0
        var runColor = false
        var runLength = 0
        // Last 11 modules as bits, newest lowest.
        var window = 0
        var index = start
        for i in 0..<count {
            let value = grid[index]
            index += stride
            if i > 0 && value == runColor {
                runLength += 1
            } else {
                if runLength >= 5 { penalty += runWeight + runLength - 5 }
                runColor = value
                runLength = 1
            }
            window = ((window << 1) & 0x7FF) | (value ? 1 : 0)
            if i >= 10 && (window == 0b000_0101_1101 || window == 0b101_1101_0000) {
                penalty += finderLikeWeight
            }
        }
        if runLength >= 5 { penalty += runWeight + runLength - 5 }
        return penalty
    }
}
