/// Why a sample cannot be encoded as, or parsed from, ``SignedSampleContent``.
public enum SampleContentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not strict DER, or not shaped like `SignedSampleContent`.
    case malformedDER(DERFault)
    /// The content's version is not 1.
    case unsupportedVersion(Int)
    /// The value is not an exact decimal text.
    case invalidDecimal(DecimalTextFault)
    /// A required text field (or an extra's key) is empty.
    case emptyField(SampleField)
    /// A text field's bytes are not valid UTF-8.
    case invalidUTF8(SampleField)
    /// A date is outside the years 1…9999.
    case dateOutOfRange(SampleField)
    /// A date has more than millisecond precision (never written by this module).
    case subMillisecondPrecision(SampleField)
    /// The end date is before the start date.
    case endBeforeStart
    /// The extras are not in strictly ascending key order (or repeat a key).
    case extrasNotSorted
    /// The extras are present but empty; they must be omitted instead.
    case emptyExtras

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .malformedDER(let fault): "malformed sample DER: \(fault)"
        case .unsupportedVersion(let version): "sample content version \(version) is not supported"
        case .invalidDecimal(let fault): "invalid decimal value: \(fault)"
        case .emptyField(let field): "\(field) is empty"
        case .invalidUTF8(let field): "\(field) is not valid UTF-8"
        case .dateOutOfRange(let field): "\(field) is outside years 1-9999"
        case .subMillisecondPrecision(let field): "\(field) has more than millisecond precision"
        case .endBeforeStart: "endDate is before startDate"
        case .extrasNotSorted: "extras are not sorted by key without repeats"
        case .emptyExtras: "extras are present but empty"
        }
    }
}
