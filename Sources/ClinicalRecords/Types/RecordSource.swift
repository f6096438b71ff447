/// Where records came from: a healthcare institution, a file, a card issuer.
///
/// As in HealthKit, a record is identified by its source, FHIR resource type and resource id.
public struct RecordSource: Sendable, Hashable, Codable {
    /// A stable identifier, e.g. `Patient.000.ndjson` or `https://spec.smarthealth.cards/examples/issuer`.
    public var identifier: String
    /// The name people see; the identifier when none was given.
    public var name: String

    /// Makes a source; without a `name`, people see the identifier.
    public init(identifier: String, name: String? = nil) {
        self.identifier = identifier
        self.name = name ?? identifier
    }
}
