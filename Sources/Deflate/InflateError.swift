/// Why inflating a DEFLATE (RFC 1951) or zlib (RFC 1950) stream failed.
public enum InflateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input ends before the final block (or, for zlib, before the Adler-32 trailer) is complete.
    case truncated
    /// Whole bytes follow the end of the stream (padding bits in the last byte are ignored).
    case trailingBytes(count: Int)
    /// The stream is not valid: see the reason.
    case corrupt(Reason)
    /// The output would grow beyond the caller's limit (an inflate bomb, or a wrong size guess).
    case outputTooLarge(limit: Int)
    /// The Adler-32 trailer of a zlib stream does not match the inflated bytes.
    case checksumMismatch(expected: UInt32, computed: UInt32)

    /// What exactly is wrong with a corrupt stream.
    public enum Reason: Sendable, Equatable, CustomStringConvertible {
        /// A block header has type 3, which RFC 1951 reserves.
        case invalidBlockType
        /// A stored block's LEN is not the one's complement of its NLEN.
        case storedLengthMismatch(length: UInt16, complement: UInt16)
        /// A dynamic block declares more than 286 literal/length or 30 distance codes.
        case tooManySymbols(literalLengthCodes: Int, distanceCodes: Int)
        /// A Huffman code's lengths do not describe a valid prefix code.
        case invalidCodeLengths(HuffmanCode, CodeDefect)
        /// A code-length repeat (symbol 16) comes first, with no length to repeat.
        case repeatWithoutPreviousLength
        /// A code-length repeat runs past the number of lengths the block declared.
        case repeatPastEnd
        /// A dynamic block gives the end-of-block symbol (256) no code.
        case missingEndOfBlock
        /// A literal/length code that no symbol may use (286, 287, or an unassigned code).
        case invalidLiteralLengthSymbol
        /// A distance code that no symbol may use (30, 31, or an unassigned code).
        case invalidDistanceSymbol
        /// A match refers back further than the output produced so far.
        case distanceTooFarBack(distance: Int, available: Int)
        /// The zlib header's check bits (CMF·256 + FLG ≡ 0 mod 31) are wrong.
        case invalidZlibHeaderCheck
        /// The zlib header names a compression method other than 8 (DEFLATE).
        case unsupportedCompressionMethod(UInt8)
        /// The zlib header declares a window larger than 32 KiB (CINFO above 7).
        case invalidWindowSize(cinfo: UInt8)
        /// The zlib header asks for a preset dictionary, which is not supported.
        case presetDictionary

        /// A message in the style of zlib's.
        public var description: String {
            switch self {
            case .invalidBlockType: return "invalid block type"
            case .storedLengthMismatch(let len, let nlen):
                return "invalid stored block lengths (LEN \(len), NLEN \(nlen))"
            case .tooManySymbols(let lit, let dist):
                return "too many length or distance symbols (\(lit) literal/length, \(dist) distance)"
            case .invalidCodeLengths(let code, let defect): return "invalid \(code) code lengths: \(defect)"
            case .repeatWithoutPreviousLength: return "invalid bit length repeat: nothing to repeat"
            case .repeatPastEnd: return "invalid bit length repeat: past the declared lengths"
            case .missingEndOfBlock: return "invalid code: missing end-of-block"
            case .invalidLiteralLengthSymbol: return "invalid literal/length code"
            case .invalidDistanceSymbol: return "invalid distance code"
            case .distanceTooFarBack(let d, let a): return "invalid distance too far back (\(d) with \(a) bytes of output)"
            case .invalidZlibHeaderCheck: return "incorrect zlib header check"
            case .unsupportedCompressionMethod(let m): return "unknown compression method \(m)"
            case .invalidWindowSize(let c): return "invalid window size (CINFO \(c))"
            case .presetDictionary: return "a preset dictionary (FDICT) is not supported"
            }
        }
    }

    /// Which of a dynamic block's three Huffman codes.
    public enum HuffmanCode: String, Sendable, Equatable, CustomStringConvertible {
        /// The code-length code that encodes the other two codes' lengths.
        case codeLength = "code-length"
        /// The literal/length code.
        case literalLength = "literal/length"
        /// The distance code.
        case distance
        /// The name as used in messages.
        public var description: String { rawValue }
    }

    /// How a set of code lengths fails to be a valid prefix code.
    public enum CodeDefect: String, Sendable, Equatable, CustomStringConvertible {
        /// More codes than the lengths allow (Kraft sum above 1).
        case overSubscribed = "over-subscribed"
        /// Codes left unused where RFC 1951 (as zlib reads it) needs a complete code.
        case incomplete
        /// The name as used in messages.
        public var description: String { rawValue }
    }

    /// A one-line message.
    public var description: String {
        switch self {
        case .truncated: return "DEFLATE stream is truncated"
        case .trailingBytes(let n): return "\(n) bytes follow the end of the DEFLATE stream"
        case .corrupt(let reason): return "corrupt DEFLATE stream: \(reason)"
        case .outputTooLarge(let limit): return "inflated data exceeds the limit of \(limit) bytes"
        case .checksumMismatch(let e, let c):
            return "Adler-32 mismatch: the stream says \(hex(e)), the data gives \(hex(c))"
        }
    }

    private func hex(_ v: UInt32) -> String {
        let s = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - s.count) + s
    }
}
