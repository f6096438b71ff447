/// An encoded QR symbol: a square grid of dark (true) and light (false) modules,
/// without quiet zone.
public struct QRMatrix: Sendable, Hashable {
    /// The symbol's version; it fixes ``size``.
    public let version: QRVersion
    /// The error correction level recorded in the format information.
    public let level: QRErrorCorrectionLevel
    /// The data mask applied (0...7).
    public let mask: Int
    /// Row-major modules, `size * size` of them; true is dark.
    public private(set) var modules: [Bool]

    /// Modules per side.
    public var size: Int { version.size }

    init(version: QRVersion, level: QRErrorCorrectionLevel, mask: Int, modules: [Bool]) {
        self.version = version
        self.level = level
        self.mask = mask
        self.modules = modules
    }

    /// The module at column `x`, row `y`; setting it lets callers simulate damage.
    /// Coordinates outside the symbol read as light and ignore writes.
    public subscript(x: Int, y: Int) -> Bool {
        get {
            guard x >= 0, y >= 0, x < size, y < size else { return false }
            return modules[y * size + x]
        }
        set {
            guard x >= 0, y >= 0, x < size, y < size else { return }
            modules[y * size + x] = newValue
        }
    }

    /// For each codeword in interleaved (transmission) order, the eight modules holding
    /// its bits, most significant bit first. Remainder bits belong to no codeword.
    public var codewordModulePositions: [[QRModulePosition]] {
        let order = FunctionPatterns(version: version).dataModuleOrder
        let total = version.blockLayout(level: level).totalCodewords
        return (0..<total).map { codeword in
            (0..<8).map { bit in
                let index = order[codeword * 8 + bit]
                return QRModulePosition(x: index % size, y: index / size)
            }
        }
    }
}
