/// A point in image coordinates (pixels; x to the right, y down).
public struct QRPoint: Sendable, Hashable, CustomStringConvertible {
    /// Pixels from the left edge of the image.
    public var x: Double
    /// Pixels from the top edge of the image (y grows downwards).
    public var y: Double

    /// Creates a point; coordinates are pixels and may be fractional.
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
