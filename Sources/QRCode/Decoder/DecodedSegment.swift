/// One segment read from a QR code.
public struct DecodedSegment: Sendable, Hashable {
    /// The segment's mode; it decides how ``bytes`` are to be read.
    public let mode: QRMode
    /// The raw content: ASCII characters for numeric and alphanumeric, the bytes of a byte
    /// segment, Shift JIS byte pairs for kanji, empty for ECI.
    public let bytes: [UInt8]
    /// The content as text: byte segments use the character set of the ECI in force
    /// (UTF-8, else ISO-8859-1, when none is); nil where it cannot be represented
    /// (kanji the platform cannot convert) and for ECI segments.
    public let text: String?
    /// The assignment number of an ECI segment; nil for other modes.
    public let eciAssignment: Int?

    /// Creates a segment as given; nothing checks that `text` matches `bytes`.
    public init(mode: QRMode, bytes: [UInt8], text: String?, eciAssignment: Int? = nil) {
        self.mode = mode
        self.bytes = bytes
        self.text = text
        self.eciAssignment = eciAssignment
    }
}
