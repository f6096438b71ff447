/// The name of a user parameter, as the app API spells it (`resourceType`, `relevantDateFrom`).
///
/// Both front ends use these names: the server reads them from URL queries and JSON bodies, and
/// the CLI fills them from its options, so a parser and its errors never depend on which front
/// end asked. The CLI shows them as its flags (``ParameterError/message(naming:)``).
public struct ParameterName: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public var description: String { rawValue }

    /// A clinical or quantity type name.
    public static let type: ParameterName = "type"
    /// Several type names (repeated or comma-separated).
    public static let types: ParameterName = "types"
    /// A FHIR resource type name, e.g. `Observation`.
    public static let resourceType: ParameterName = "resourceType"
    /// A source's identifier, e.g. `Patient.000.ndjson` (a file imported without a source is its own).
    public static let source: ParameterName = "source"
    /// The start of the range on the query's main date (clinical date, sample start).
    public static let from: ParameterName = "from"
    /// The end of the range on the query's main date.
    public static let to: ParameterName = "to"
    /// The start of the range on the date the store added the item.
    public static let addedFrom: ParameterName = "addedFrom"
    /// The end of the range on the date the store added the item.
    public static let addedTo: ParameterName = "addedTo"
    /// The most items to return.
    public static let limit: ParameterName = "limit"
    /// The order: a key, `-` in front for newest first.
    public static let sort: ParameterName = "sort"
    /// Where a change feed resumes.
    public static let anchor: ParameterName = "anchor"
    /// Verifiable-record types a card must all have.
    public static let recordTypes: ParameterName = "recordTypes"
    /// The start of the range on a card's relevant date.
    public static let relevantDateFrom: ParameterName = "relevantDateFrom"
    /// The end of the range on a card's relevant date.
    public static let relevantDateTo: ParameterName = "relevantDateTo"
    /// Kinds of verifiable record: `SMARTHealthCard`, `EUDigitalCOVIDCertificate`.
    public static let sourceTypes: ParameterName = "sourceTypes"
}
