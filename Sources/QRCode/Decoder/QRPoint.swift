/// A point in image coordinates (pixels; x to the right, y down).
public struct QRPoint: Sendable, Hashable, CustomStringConvertible {
    /// Horizontal position.
    public var x: Double
    /// Vertical position.
    public var y: Double

    /// Creates a point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    func distance(to other: QRPoint) -> Double {
        ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
    }

    /// For example "(12.5, 40.0)".
    public var description: String {
        "(\((x * 10).rounded() / 10), \((y * 10).rounded() / 10))"
    }
}
