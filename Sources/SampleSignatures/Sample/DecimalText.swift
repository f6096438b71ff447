/// A measurement value as its exact decimal text: `-?[0-9]+(\.[0-9]+)?`.
///
/// The text is kept as written, so `5.40` and `5.4` are different values
/// (they carry different precision) and encode to different bytes. No
/// exponent, no `+`, no leading or trailing `.`, no spaces.
public struct DecimalText: Hashable, Sendable, CustomStringConvertible {
    /// The longest accepted text.
    public static let maximumLength = 64

    /// The decimal text, exactly as given.
    public let text: String

    /// Validates `text` as an exact decimal.
    /// - Throws: ``SampleContentError/invalidDecimal(_:)``.
    public init(_ text: String) throws(SampleContentError) {
        if let fault = Self.fault(in: text) {
            throw .invalidDecimal(fault)
        }
        self.text = text
    }

    /// The first problem with `text`, or `nil` when it is a valid decimal.
    public static func fault(in text: String) -> DecimalTextFault? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return .empty }
        guard bytes.count <= maximumLength else { return .tooLong }
        var index = 0
        if bytes[0] == UInt8(ascii: "-") { index = 1 }
        var integerDigits = 0
        var fractionDigits = 0
        var sawPoint = false
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if sawPoint { fractionDigits += 1 } else { integerDigits += 1 }
            case UInt8(ascii: "."):
                guard !sawPoint else { return .unexpectedCharacter(offset: index) }
                guard integerDigits > 0 else { return .missingIntegerDigits }
                sawPoint = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                return .exponentNotAllowed(offset: index)
            default:
                return .unexpectedCharacter(offset: index)
            }
            index += 1
        }
        guard integerDigits > 0 else { return .missingIntegerDigits }
        if sawPoint, fractionDigits == 0 { return .missingFractionDigits }
        return nil
    }

    /// The decimal exactly as given, so `5.40` prints as `5.40`.
    public var description: String { text }
}
