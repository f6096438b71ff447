/// Why a zlib or raw DEFLATE stream could not be decompressed. Offsets are in bytes
/// from the start of the compressed input.
public enum InflateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The two-byte zlib header is malformed (bad check bits or window size).
    case invalidZlibHeader(cmf: UInt8, flg: UInt8)
    /// The zlib header names a compression method other than DEFLATE (8).
    case unsupportedCompressionMethod(Int)
    /// The zlib stream needs a preset dictionary, which PNG never uses.
    case presetDictionaryNotSupported
    /// The input ended inside the stream.
    case truncated(offset: Int)
    /// Block type 3 is reserved.
    case invalidBlockType(offset: Int)
    /// A stored block's length does not match its one's complement.
    case storedLengthMismatch(offset: Int)
    /// A dynamic block's Huffman code lengths are inconsistent.
    case invalidHuffmanCode(offset: Int, reason: String)
    /// The stream used a literal/length or distance symbol that has no meaning.
    case invalidSymbol(offset: Int)
    /// A back-reference points before the start of the output.
    case distanceTooFar(distance: Int, available: Int, offset: Int)
    /// Decompressing would produce more than the allowed number of bytes.
    case outputLimitExceeded(limit: Int)
    /// The Adler-32 checksum at the end of the zlib stream is wrong.
    case adler32Mismatch(expected: UInt32, actual: UInt32)

    /// A message naming what is wrong and where.
    public var description: String {
        switch self {
        case let .invalidZlibHeader(cmf, flg):
            return "invalid zlib header bytes 0x\(String(cmf, radix: 16)) 0x\(String(flg, radix: 16))"
        case let .unsupportedCompressionMethod(method):
            return "zlib compression method \(method) is not DEFLATE (8)"
        case .presetDictionaryNotSupported:
            return "zlib stream requires a preset dictionary"
        case let .truncated(offset):
            return "compressed data ends unexpectedly at byte \(offset)"
        case let .invalidBlockType(offset):
            return "reserved DEFLATE block type 3 at byte \(offset)"
        case let .storedLengthMismatch(offset):
            return "stored block length check fails at byte \(offset)"
        case let .invalidHuffmanCode(offset, reason):
            return "invalid Huffman code lengths at byte \(offset): \(reason)"
        case let .invalidSymbol(offset):
            return "invalid DEFLATE symbol at byte \(offset)"
        case let .distanceTooFar(distance, available, offset):
            return "back-reference distance \(distance) exceeds the \(available) bytes produced so far, at byte \(offset)"
        case let .outputLimitExceeded(limit):
            return "decompressed data exceeds the limit of \(limit) bytes"
        case let .adler32Mismatch(expected, actual):
            return "Adler-32 mismatch: stream says 0x\(String(expected, radix: 16)), data gives 0x\(String(actual, radix: 16))"
        }
    }
}
