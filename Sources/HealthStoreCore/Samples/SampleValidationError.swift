import SampleSignatures

/// Why a quantity sample cannot be made or saved.
public enum SampleValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value is not an exact decimal (`-?[0-9]+(.[0-9]+)?`, at most 64 characters).
    case invalidValue(String, DecimalTextFault)
    /// The unit is not one accepted for the type.
    case unitNotAllowed(unit: String, type: QuantityType)
    /// The end date is before the start date.
    case endBeforeStart
    /// A date is outside the years 1–9999, the range the signed content can hold.
    case dateOutOfRange
    /// The device identifier is empty.
    case emptyDeviceIdentifier
    /// A metadata key is empty.
    case emptyMetadataKey

    public var description: String {
        switch self {
        case .invalidValue(let text, let fault): return "value \"\(text)\" is not an exact decimal: \(fault)"
        case .unitNotAllowed(let unit, let type):
            return "unit \"\(unit)\" is not accepted for \(type.name) (use \(type.allowedUnits.joined(separator: ", ")))"
        case .endBeforeStart: return "the end date is before the start date"
        case .dateOutOfRange: return "a date is outside the years 1-9999"
        case .emptyDeviceIdentifier: return "the device identifier is empty"
        case .emptyMetadataKey: return "a metadata key is empty"
        }
    }
}
