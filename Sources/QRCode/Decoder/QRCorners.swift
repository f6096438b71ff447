/// The outer corners of a symbol in an image, named by the symbol's own orientation
/// (top-left is the corner whose finder pattern has finders on both sides).
public struct QRCorners: Sendable, Hashable {
    /// Outer corner of the top-left finder pattern.
    public let topLeft: QRPoint
    /// Outer corner of the top-right finder pattern.
    public let topRight: QRPoint
    /// The corner without a finder pattern.
    public let bottomRight: QRPoint
    /// Outer corner of the bottom-left finder pattern.
    public let bottomLeft: QRPoint

    /// Creates a corner set as given; the caller names each corner in the symbol's own orientation.
    public init(topLeft: QRPoint, topRight: QRPoint, bottomRight: QRPoint, bottomLeft: QRPoint) {
        self.topLeft = topLeft
        self.topRight = topRight
        self.bottomRight = bottomRight
        self.bottomLeft = bottomLeft
    }

    /// The centre of the four corners.
    public var center: QRPoint {
        QRPoint(x: (topLeft.x + topRight.x + bottomRight.x + bottomLeft.x) / 4,
                y: (topLeft.y + topRight.y + bottomRight.y + bottomLeft.y) / 4)
    }
}
