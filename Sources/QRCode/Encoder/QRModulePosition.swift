/// The column (`x`) and row (`y`) of one module in a symbol, 0-based from the top-left.
public struct QRModulePosition: Sendable, Hashable {
    /// Column, 0 at the left.
    public let x: Int
    /// Row, 0 at the top.
    public let y: Int

    /// Creates a position; nothing checks that it lies inside a symbol.
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}
