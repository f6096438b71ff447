/// Why pixels could not form a `GrayImage`.
public enum GrayImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The pixel array's length is not width × height.
    case pixelCountMismatch(expected: Int, actual: Int)
    /// A side is negative or the area overflows.
    case invalidDimensions(width: Int, height: Int)

    /// A message naming what is wrong and where.
    public var description: String {
        switch self {
        case let .pixelCountMismatch(expected, actual):
            return "gray image needs \(expected) pixels but got \(actual)"
        case let .invalidDimensions(width, height):
            return "invalid gray image dimensions \(width)×\(height)"
        }
    }
}
