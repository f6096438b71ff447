/// Why a value's text is not an exact decimal of the form `-?[0-9]+(\.[0-9]+)?`.
public enum DecimalTextFault: Hashable, Sendable, CustomStringConvertible {
    /// The text is empty.
    case empty
    /// The text is longer than ``DecimalText/maximumLength`` characters.
    case tooLong
    /// An exponent (`e`/`E`) at this offset; values are written out in full.
    case exponentNotAllowed(offset: Int)
    /// A character at this offset that is not a digit, a leading `-` or one `.`.
    case unexpectedCharacter(offset: Int)
    /// No digit before the `.` (as in `.5` or `-`).
    case missingIntegerDigits
    /// No digit after the `.` (as in `5.`).
    case missingFractionDigits

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .empty: "empty value"
        case .tooLong: "value text is too long"
        case .exponentNotAllowed(let offset): "exponent at offset \(offset) is not allowed"
        case .unexpectedCharacter(let offset): "unexpected character at offset \(offset)"
        case .missingIntegerDigits: "no digits before the decimal point"
        case .missingFractionDigits: "no digits after the decimal point"
        }
    }
}
