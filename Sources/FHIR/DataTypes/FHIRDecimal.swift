import Foundation

/// A FHIR decimal: its exact text (which carries precision, `1.50` ≠ `1.5`) and its value.
public struct FHIRDecimal: Sendable, Hashable, CustomStringConvertible {
    /// The decimal exactly as written.
    public let text: String

    /// Makes a decimal from a JSON number.
    public init(_ number: JSONNumber) { self.text = number.text }

    /// Makes a decimal from text, if it is a valid JSON number.
    public init?(text: String) {
        guard let n = JSONNumber(text) else { return nil }
        self.text = n.text
    }

    /// The value as a `Decimal` (exact for the digits written).
    public var value: Decimal { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? .nan }

    /// The value as a `Double`.
    public var doubleValue: Double { Double(text) ?? .nan }

    /// Digits after the decimal point, which FHIR treats as the value's precision.
    public var fractionDigits: Int {
        guard let dot = text.firstIndex(of: ".") else { return 0 }
        let rest = text[text.index(after: dot)...]
        return rest.prefix { $0.isNumber }.count
    }

    public var description: String { text }
}
