import Deflate
/// Why a PNG could not be decoded. Offsets are byte offsets into the PNG file.
public enum PNGError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file does not start with the 8-byte PNG signature.
    case notPNG
    /// The file ends inside a chunk (or before IEND).
    case truncated(offset: Int)
    /// A chunk's CRC does not match its type and data.
    case badCRC(chunk: String, offset: Int)
    /// A chunk's length is impossible for its type, or above 2^31 − 1.
    case invalidChunkLength(chunk: String, length: Int, offset: Int)
    /// A chunk appears where PNG does not allow it (e.g. IHDR not first, PLTE after IDAT).
    case chunkOutOfOrder(chunk: String, offset: Int)
    /// A critical chunk this decoder does not know, so the image cannot be shown safely.
    case unknownCriticalChunk(chunk: String, offset: Int)
    /// The first chunk is not IHDR.
    case missingHeader
    /// IHDR gives a zero width or height, or one above 2^31 − 1.
    case invalidDimensions(width: Int, height: Int)
    /// IHDR gives a colour type / bit depth pair that PNG does not define.
    case invalidColorTypeAndBitDepth(colorType: Int, bitDepth: Int)
    /// IHDR names a compression method other than 0.
    case unsupportedCompressionMethod(Int)
    /// IHDR names a filter method other than 0.
    case unsupportedFilterMethod(Int)
    /// IHDR names an interlace method other than 0 (none) or 1 (Adam7).
    case unsupportedInterlaceMethod(Int)
    /// An indexed-colour image has no PLTE chunk.
    case missingPalette
    /// A pixel refers to a palette entry that does not exist.
    case paletteIndexOutOfRange(index: Int, paletteSize: Int)
    /// No IDAT chunk at all.
    case missingImageData
    /// The image exceeds one of the decoder's size limits.
    case imageTooLarge(width: Int, height: Int, limits: PNGDecoder.Limits)
    /// The image data would decompress to more bytes than the limit allows.
    case decompressedSizeExceedsLimit(needed: Int, limit: Int)
    /// The image data decompresses to fewer bytes than the header requires.
    case imageDataTooShort(expected: Int, actual: Int)
    /// The image data decompresses to more bytes than the header allows.
    case imageDataTooLong(expected: Int)
    /// A scanline starts with a filter type other than 0...4.
    case invalidFilterType(UInt8, row: Int, pass: Int)
    /// The zlib stream inside the IDAT chunks is corrupt.
    case compressedData(InflateError)

    /// A message naming what is wrong and where.
    public var description: String {
        switch self {
        case .notPNG: return "not a PNG file: bad signature"
        case let .truncated(offset): return "PNG data truncated at byte \(offset)"
        case let .badCRC(chunk, offset): return "CRC mismatch in \(chunk) chunk at byte \(offset)"
        case let .invalidChunkLength(chunk, length, offset): return "invalid length \(length) for \(chunk) chunk at byte \(offset)"
        case let .chunkOutOfOrder(chunk, offset): return "\(chunk) chunk not allowed at byte \(offset)"
        case let .unknownCriticalChunk(chunk, offset): return "unknown critical chunk \(chunk) at byte \(offset)"
        case .missingHeader: return "PNG does not start with an IHDR chunk"
        case let .invalidDimensions(width, height): return "invalid PNG dimensions \(width)×\(height)"
        case let .invalidColorTypeAndBitDepth(colorType, bitDepth): return "colour type \(colorType) does not allow bit depth \(bitDepth)"
        case let .unsupportedCompressionMethod(method): return "unsupported PNG compression method \(method)"
        case let .unsupportedFilterMethod(method): return "unsupported PNG filter method \(method)"
        case let .unsupportedInterlaceMethod(method): return "unsupported PNG interlace method \(method)"
        case .missingPalette: return "indexed-colour PNG has no PLTE chunk"
        case let .paletteIndexOutOfRange(index, size): return "palette index \(index) outside a palette of \(size) entries"
        case .missingImageData: return "PNG has no IDAT chunk"
        case let .imageTooLarge(width, height, limits):
            return "PNG of \(width)×\(height) exceeds the limits (max \(limits.maxWidth)×\(limits.maxHeight), \(limits.maxPixels) pixels)"
        case let .decompressedSizeExceedsLimit(needed, limit): return "PNG image data needs \(needed) bytes, above the \(limit)-byte limit"
        case let .imageDataTooShort(expected, actual): return "PNG image data has \(actual) bytes, expected \(expected)"
        case let .imageDataTooLong(expected): return "PNG image data is longer than the expected \(expected) bytes"
        case let .invalidFilterType(filter, row, pass): return "invalid filter type \(filter) on row \(row) of pass \(pass)"
        case let .compressedData(error): return "PNG image data: \(error)"
        }
    }
}
