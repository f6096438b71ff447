/// Why a QR matrix could not be rendered as an image.
public enum QRRenderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The module size is outside the allowed range.
    case invalidModuleSize(Int, allowed: ClosedRange<Int>)
    /// The quiet zone (in modules) is outside the allowed range.
    case invalidQuietZone(Int, allowed: ClosedRange<Int>)
    /// The image would be wider than the largest allowed side.
    case imageTooLarge(side: Int, maxSide: Int)

    /// A message naming what is wrong and where.
    public var description: String {
        switch self {
        case let .invalidModuleSize(size, allowed):
            return "module size \(size) px is outside \(allowed.lowerBound)...\(allowed.upperBound)"
        case let .invalidQuietZone(zone, allowed):
            return "quiet zone of \(zone) modules is outside \(allowed.lowerBound)...\(allowed.upperBound)"
        case let .imageTooLarge(side, maxSide):
            return "rendered image would be \(side) px wide, more than the \(maxSide) px limit"
        }
    }
}
