/// A QR code read from an image or a module grid.
public struct DecodedQR: Sendable, Hashable {
    /// All segments' text joined; byte segments are read per their ECI (UTF-8, else
    /// ISO-8859-1 when no ECI is given).
    public let text: String
    /// The segments in order, ECI designators included.
    public let segments: [DecodedSegment]
    /// The symbol's version, which fixes its size (17 + 4 × version modules per side).
    public let version: QRVersion
    /// The error correction level read from the format information (L, M, Q or H).
    public let level: QRErrorCorrectionLevel
    /// The data mask (0...7).
    public let mask: Int
    /// Codewords Reed–Solomon decoding changed, summed over all blocks.
    public let correctedErrors: Int
    /// Where the symbol's outer corners lie in the image (in module units for a bare grid).
    public let position: QRCorners
    /// True when the symbol was read as a mirror image.
    public let mirrored: Bool

    /// The concatenated payload bytes of every non-ECI segment.
    public var bytes: [UInt8] { segments.flatMap { $0.bytes } }

    func with(position: QRCorners, mirrored: Bool) -> DecodedQR {
        DecodedQR(text: text, segments: segments, version: version, level: level, mask: mask,
                  correctedErrors: correctedErrors, position: position, mirrored: mirrored)
    }
}
