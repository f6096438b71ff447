/// The fixed parts of a symbol — finders, separators, timing, alignment, dark module,
/// and the areas reserved for format and version information — for one version.
///
/// Both the encoder (to draw) and the decoder (to know which modules carry data) use it.
struct FunctionPatterns: Sendable {
    let version: QRVersion
    let size: Int
    /// Row-major; true where a module belongs to a function pattern or reserved area.
    private(set) var isFunction: [Bool]
    /// Row-major colours of the function patterns (format and version areas left light).
    private(set) var dark: [Bool]

    init(version: QRVersion) {
        self.version = version
        size = version.size
        isFunction = [Bool](repeating: false, count: size * size)
        dark = [Bool](repeating: false, count: size * size)

        for i in 0..<size {
            set(x: 6, y: i, dark: i % 2 == 0)
            set(x: i, y: 6, dark: i % 2 == 0)
        }
        drawFinder(centerX: 3, centerY: 3)
        drawFinder(centerX: size - 4, centerY: 3)
        drawFinder(centerX: 3, centerY: size - 4)

        let centers = version.alignmentPatternCenters
        let last = centers.count - 1
        for i in 0..<centers.count {
            for j in 0..<centers.count {
                // The three corners already hold finder patterns.
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                drawAlignment(centerX: centers[i], centerY: centers[j])
            }
        }

        // Reserve format information areas (both copies) and the dark module.
        for i in 0...8 {
            reserve(x: 8, y: i)
            reserve(x: i, y: 8)
        }
        for i in 0..<8 {
            reserve(x: size - 1 - i, y: 8)
            reserve(x: 8, y: size - 1 - i)
        }
        set(x: 8, y: size - 8, dark: true)

        if version.number >= 7 {
            for i in 0..<18 {
                let a = size - 11 + i % 3
                let b = i / 3
                reserve(x: a, y: b)
                reserve(x: b, y: a)
            }
        }
    }

    private mutating func set(x: Int, y: Int, dark value: Bool) {
        isFunction[y * size + x] = true
        dark[y * size + x] = value
    }

    private mutating func reserve(x: Int, y: Int) {
        isFunction[y * size + x] = true
    }

    private mutating func drawFinder(centerX: Int, centerY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centerX + dx, y = centerY + dy
                guard x >= 0, x < size, y >= 0, y < size else { continue }
                let distance = Swift.max(abs(dx), abs(dy))
                set(x: x, y: y, dark: distance != 2 && distance != 4)
            }
        }
    }

    private mutating func drawAlignment(centerX: Int, centerY: Int) {
        for dy in -2...2 {
            for dx in -2...2 {
                set(x: centerX + dx, y: centerY + dy, dark: Swift.max(abs(dx), abs(dy)) != 1)
            }
        }
    }

    /// Module indices (row-major) in the order codeword bits fill them: two-column strips
    /// from the right, alternately upward and downward, skipping the vertical timing column.
    var dataModuleOrder: [Int] {
        var order: [Int] = []
        order.reserveCapacity(version.rawDataModuleCount)
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = ((right + 1) & 2) == 0
            for vertical in 0..<size {
                let y = upward ? size - 1 - vertical : vertical
                for j in 0..<2 {
                    let index = y * size + right - j
                    if !isFunction[index] { order.append(index) }
                }
            }
            right -= 2
        }
        return order
    }
}
