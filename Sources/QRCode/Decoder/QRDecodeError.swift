/// Why a sampled module grid could not be decoded.
public enum QRDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The grid's side is not 17 + 4v for a version v in 1...40.
    case invalidSize(Int)
    /// Neither copy of the format information is within 3 bit errors of a valid word.
    case formatInformationUnreadable
    /// The version information names a version whose size differs from the grid's.
    case versionMismatch(read: Int, gridSize: Int)
    /// A Reed–Solomon block has more errors than its ECC codewords can correct.
    case tooManyErrors(block: Int, blockCount: Int)
    /// The data holds a mode indicator that ISO/IEC 18004 does not define.
    case invalidMode(indicator: Int, bitOffset: Int)
    /// A defined mode this decoder does not read (e.g. GB 2312 Hanzi).
    case unsupportedMode(indicator: Int, bitOffset: Int)
    /// The data ends inside a segment.
    case truncatedSegment(mode: QRMode, bitOffset: Int)
    /// A numeric group holds a value with more digits than it may.
    case invalidNumericValue(Int, bitOffset: Int)
    /// An alphanumeric pair or character is beyond the 45-character set.
    case invalidAlphanumericValue(Int, bitOffset: Int)
    /// An ECI designator has an invalid first byte.
    case invalidECI(bitOffset: Int)
    /// No QR code was found in the image.
    case notFound

    /// A message naming what is wrong and where.
    public var description: String {
        switch self {
        case let .invalidSize(size): return "grid of \(size) modules per side is no QR version"
        case .formatInformationUnreadable: return "format information unreadable in both copies"
        case let .versionMismatch(read, size): return "version information says \(read) but the grid is \(size) modules wide"
        case let .tooManyErrors(block, count): return "too many errors to correct in Reed–Solomon block \(block + 1) of \(count)"
        case let .invalidMode(indicator, offset): return "invalid mode indicator \(indicator) at data bit \(offset)"
        case let .unsupportedMode(indicator, offset): return "unsupported mode indicator \(indicator) at data bit \(offset)"
        case let .truncatedSegment(mode, offset): return "data ends inside a \(mode) segment starting at bit \(offset)"
        case let .invalidNumericValue(value, offset): return "numeric group value \(value) too large at data bit \(offset)"
        case let .invalidAlphanumericValue(value, offset): return "alphanumeric value \(value) out of range at data bit \(offset)"
        case let .invalidECI(offset): return "invalid ECI designator at data bit \(offset)"
        case .notFound: return "no QR code found"
        }
    }
}
