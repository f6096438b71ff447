/// Why a JPEG could not be decoded. Offsets are byte offsets into the JPEG file.
public enum JPEGError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file does not start with the SOI marker `FF D8`.
    case notJPEG
    /// The file ends inside a segment or a scan, or before the EOI marker.
    case truncated(offset: Int)
    /// Where a marker must start (`FF xx`), something else is found, or a marker that has
    /// no meaning at that place (an RSTn outside a scan, a second SOI, a reserved code).
    case unexpectedMarker(marker: UInt8, offset: Int)
    /// Bytes that are not a marker where a marker must be.
    case markerExpected(found: UInt8, offset: Int)
    /// A segment's length field is too short for its content or runs past the file's end.
    case invalidSegmentLength(marker: UInt8, length: Int, offset: Int)
    /// A frame type this decoder does not implement: arithmetic coding (SOF9–SOF15),
    /// lossless (SOF3), hierarchical (SOF5–SOF7, DHP, EXP) and the JPEG extensions (JPG).
    case unsupportedProcess(JPEGProcess, marker: UInt8, offset: Int)
    /// A sample precision other than 8 bits (12-bit JPEG is not supported).
    case unsupportedPrecision(bits: Int, offset: Int)
    /// A colour model whose luminance is not one stored component: RGB (Adobe transform 0),
    /// CMYK / YCCK (4 components), or a count other than 1, 3 or 4.
    case unsupportedColorSpace(components: Int, adobeTransform: Int?)
    /// A frame with zero width or height (height defined later by DNL is not supported).
    case invalidDimensions(width: Int, height: Int)
    /// The frame exceeds the decoder's limits; refused before anything is allocated.
    case imageTooLarge(width: Int, height: Int, limits: JPEGDecoder.Limits)
    /// A component's sampling factors are outside 1...4, or the MCU has more than 10 blocks.
    case invalidSamplingFactors(component: Int, horizontal: Int, vertical: Int)
    /// Two components of the frame share one identifier.
    case duplicateComponent(id: Int)
    /// A second SOF marker: one frame per file is all a non-hierarchical JPEG may have.
    case multipleFrames(offset: Int)
    /// A DQT segment with a table id above 3, a precision other than 0 or 1, or a short body.
    case invalidQuantizationTable(offset: Int)
    /// A component refers to a quantization table that was never defined.
    case missingQuantizationTable(id: Int, component: Int)
    /// A DHT segment whose code counts are impossible (over-subscribed codes, more than
    /// 256 symbols), whose class or id is out of range, or whose body is short.
    case invalidHuffmanTable(offset: Int)
    /// A scan uses a Huffman table that was never defined.
    case missingHuffmanTable(isAC: Bool, id: Int, offset: Int)
    /// An SOS segment before any SOF.
    case scanBeforeFrame(offset: Int)
    /// An SOS header naming an unknown component, a component twice, too many components
    /// (or blocks) for one scan, or components out of frame order.
    case invalidScanHeader(offset: Int)
    /// Spectral selection / successive approximation values that the frame type forbids.
    case invalidProgression(start: Int, end: Int, high: Int, low: Int, offset: Int)
    /// More scans than `Limits.maxScans`.
    case tooManyScans(limit: Int)
    /// A bit pattern that is no code of the Huffman table in use.
    case invalidHuffmanCode(offset: Int)
    /// A decoded coefficient that cannot be: a run past the 64th coefficient, a magnitude
    /// category above what 8-bit samples allow, or a DC value overflowing.
    case invalidCoefficient(offset: Int)
    /// Entropy-coded data ran into a marker before the scan's blocks were all decoded.
    case scanDataExhausted(offset: Int)
    /// A restart marker out of sequence, or missing where the restart interval puts one.
    case badRestartMarker(expected: Int, found: UInt8, offset: Int)
    /// EOI came before any scan carrying the luminance component.
    case noImageData

    /// A message naming what is wrong and where.
    public var description: String {
        switch self {
        case .notJPEG: return "not a JPEG file: no SOI marker"
        case let .truncated(offset): return "JPEG data truncated at byte \(offset)"
        case let .unexpectedMarker(marker, offset): return "unexpected JPEG marker \(Self.hex(marker)) at byte \(offset)"
        case let .markerExpected(found, offset): return "expected a JPEG marker at byte \(offset), found \(Self.hex(found))"
        case let .invalidSegmentLength(marker, length, offset):
            return "invalid length \(length) for JPEG segment \(Self.hex(marker)) at byte \(offset)"
        case let .unsupportedProcess(process, marker, offset):
            return "unsupported JPEG process: \(process) (marker \(Self.hex(marker)) at byte \(offset))"
        case let .unsupportedPrecision(bits, offset): return "unsupported JPEG sample precision \(bits) bits at byte \(offset); only 8-bit is supported"
        case let .unsupportedColorSpace(components, transform):
            let adobe = transform.map { ", Adobe transform \($0)" } ?? ""
            return "unsupported JPEG colour space: \(components) components\(adobe); only grayscale and YCbCr are supported"
        case let .invalidDimensions(width, height): return "invalid JPEG dimensions \(width)×\(height)"
        case let .imageTooLarge(width, height, limits):
            return "JPEG of \(width)×\(height) exceeds the limits (max side \(limits.maxDimension), \(limits.maxPixels) pixels)"
        case let .invalidSamplingFactors(component, horizontal, vertical):
            return "invalid sampling factors \(horizontal)×\(vertical) for JPEG component \(component)"
        case let .duplicateComponent(id): return "JPEG component id \(id) appears twice in the frame"
        case let .multipleFrames(offset): return "second JPEG frame header at byte \(offset)"
        case let .invalidQuantizationTable(offset): return "invalid JPEG quantization table at byte \(offset)"
        case let .missingQuantizationTable(id, component): return "JPEG component \(component) uses undefined quantization table \(id)"
        case let .invalidHuffmanTable(offset): return "invalid JPEG Huffman table at byte \(offset)"
        case let .missingHuffmanTable(isAC, id, offset):
            return "JPEG scan at byte \(offset) uses undefined \(isAC ? "AC" : "DC") Huffman table \(id)"
        case let .scanBeforeFrame(offset): return "JPEG scan at byte \(offset) comes before the frame header"
        case let .invalidScanHeader(offset): return "invalid JPEG scan header at byte \(offset)"
        case let .invalidProgression(start, end, high, low, offset):
            return "invalid JPEG progression Ss=\(start) Se=\(end) Ah=\(high) Al=\(low) in scan at byte \(offset)"
        case let .tooManyScans(limit): return "JPEG has more than \(limit) scans"
        case let .invalidHuffmanCode(offset): return "invalid Huffman code in JPEG scan data near byte \(offset)"
        case let .invalidCoefficient(offset): return "invalid DCT coefficient in JPEG scan data near byte \(offset)"
        case let .scanDataExhausted(offset): return "JPEG scan data ends early at byte \(offset)"
        case let .badRestartMarker(expected, found, offset):
            return "expected restart marker RST\(expected) at byte \(offset), found \(Self.hex(found))"
        case .noImageData: return "JPEG has no scan carrying the luminance component"
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "FF\(digits[Int(byte >> 4)])\(digits[Int(byte & 0xF)])"
    }
}

/// The JPEG coding processes this decoder refuses, named for error messages.
public enum JPEGProcess: Sendable, Hashable, CustomStringConvertible {
    /// SOF3: lossless (predictive) coding.
    case lossless
    /// SOF5–SOF7, DHP or EXP: hierarchical (differential) coding.
    case hierarchical
    /// SOF9–SOF15 and DAC: arithmetic entropy coding.
    case arithmeticCoding
    /// JPG and SOF reserved for JPEG extensions.
    case extensions

    /// A short human-readable name.
    public var description: String {
        switch self {
        case .lossless: return "lossless"
        case .hierarchical: return "hierarchical"
        case .arithmeticCoding: return "arithmetic coding"
        case .extensions: return "JPEG extensions"
        }
    }
}
