/// A QR code version (1...40); version `v` has `17 + 4v` modules per side.
public struct QRVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The version number, 1...40.
    public let number: Int

    /// The smallest version, 1.
    public static let min = QRVersion(unchecked: 1)
    /// The largest version, 40.
    public static let max = QRVersion(unchecked: 40)
    /// Every version from 1 to 40.
    public static let all: [QRVersion] = (1...40).map { QRVersion(unchecked: $0) }

    /// Creates a version, or returns nil when `number` is outside 1...40.
    public init?(_ number: Int) {
        guard (1...40).contains(number) else { return nil }
        self.number = number
    }

    init(unchecked number: Int) { self.number = number }

    /// The version whose symbol is `size` modules wide, or nil if no version has that size.
    public init?(size: Int) {
        guard size >= 21, (size - 17) % 4 == 0 else { return nil }
        self.init((size - 17) / 4)
    }

    /// Modules per side: 21 for version 1 up to 177 for version 40.
    public var size: Int { 17 + 4 * number }

    /// Centre coordinates (row and column) of the alignment patterns, ascending.
    var alignmentPatternCenters: [Int] {
        if number == 1 { return [] }
        let count = number / 7 + 2
        let step = number == 32 ? 26 : (number * 4 + count * 2 + 1) / (count * 2 - 2) * 2
        var result = [6]
        var position = size - 7
        while result.count < count {
            result.insert(position, at: 1)
            position -= step
        }
        return result
    }

    /// Modules left for codewords and remainder bits once every function pattern is placed.
    var rawDataModuleCount: Int {
        var result = (16 * number + 128) * number + 64
        if number >= 2 {
            let count = number / 7 + 2
            result -= (25 * count - 10) * count - 55
            if number >= 7 { result -= 36 }
        }
        return result
    }

    /// How the codewords of this version at `level` split into Reed–Solomon blocks.
    public func blockLayout(level: QRErrorCorrectionLevel) -> QRBlockLayout {
        QRBlockLayout(
            totalCodewords: rawDataModuleCount / 8,
            blockCount: QRVersion.blockCounts[level.rawValue][number],
            eccCodewordsPerBlock: QRVersion.eccPerBlock[level.rawValue][number]
        )
    }

    /// Data codewords (excluding error correction) this version holds at `level`.
    public func dataCodewordCount(level: QRErrorCorrectionLevel) -> Int {
        blockLayout(level: level).dataCodewordCount
    }

    /// Orders versions by number.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.number < rhs.number }

    /// For example "version 18".
    public var description: String { "version \(number)" }

    // ISO/IEC 18004 Table 9, indexed [level][version]; index 0 is unused.
    static let eccPerBlock: [[Int]] = [
        [0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
        [0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    ]

    static let blockCounts: [[Int]] = [
        [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
        [0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
        [0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
        [0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
    ]
}
