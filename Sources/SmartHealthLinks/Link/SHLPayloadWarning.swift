import FHIR

/// Something a reader tolerated in a link's payload rather than refused: the link still opens,
/// and the receiver may tell the person (or the log).
///
/// The spec makes `exp` a hint for the receiver (the server enforces it), so a malformed `exp` is
/// reported here and not trusted — ``SHLinkPayload/expiration`` is `nil` — rather than refusing
/// the link. The IG's own payload example writes `exp` as a string of milliseconds.
public enum SHLPayloadWarning: Sendable, Hashable, CustomStringConvertible {
    /// `exp` is not a JSON number (a string, even of digits; a boolean; an object…): ignored.
    case expirationNotANumber(JSONValue)
    /// `exp` is a number too large for seconds (after the year 5138): milliseconds, most
    /// likely. Ignored.
    case expirationInMilliseconds(Int64)
    /// `label` is longer than 80 characters; it is kept whole, for the caller to shorten.
    case labelTooLong(length: Int)
    /// `url` is longer than the 128 characters the spec allows the sharer.
    case urlTooLong(length: Int)
    /// `flag` holds letters that name no flag this reader knows; they are ignored.
    case unknownFlags(String)

    /// A stable code for the warning, e.g. `shl.payload.exp`.
    public var code: String {
        switch self {
        case .expirationNotANumber, .expirationInMilliseconds: return "shl.payload.exp"
        case .labelTooLong: return "shl.payload.label"
        case .urlTooLong: return "shl.payload.url"
        case .unknownFlags: return "shl.payload.flag"
        }
    }

    public var description: String {
        switch self {
        case .expirationNotANumber(let value): return "exp \(JSONWriter.minifiedString(value).prefix(40)) is not a number of seconds; ignored"
        case .expirationInMilliseconds(let value): return "exp \(value) looks like milliseconds, not seconds; ignored"
        case .labelTooLong(let length): return "the label is \(length) characters long; at most 80 are allowed"
        case .urlTooLong(let length): return "the url is \(length) characters long; at most 128 are allowed"
        case .unknownFlags(let letters): return "unknown flags \(letters) ignored"
        }
    }
}
