/// A FHIR resource type name, e.g. `Observation`.
///
/// Any name is allowed (FHIR has over a hundred types); the ones HealthKit exposes are constants.
public struct FHIRResourceType: RawRepresentable, Sendable, Hashable, Codable, Comparable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The `resourceType` string.
    public let rawValue: String

    /// Makes a resource type from its name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Makes a resource type from its name.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    public static func < (lhs: FHIRResourceType, rhs: FHIRResourceType) -> Bool { lhs.rawValue < rhs.rawValue }

    public static let allergyIntolerance: FHIRResourceType = "AllergyIntolerance"
    public static let condition: FHIRResourceType = "Condition"
    public static let coverage: FHIRResourceType = "Coverage"
    public static let diagnosticReport: FHIRResourceType = "DiagnosticReport"
    public static let documentReference: FHIRResourceType = "DocumentReference"
    public static let immunization: FHIRResourceType = "Immunization"
    public static let medicationDispense: FHIRResourceType = "MedicationDispense"
    public static let medicationOrder: FHIRResourceType = "MedicationOrder"
    public static let medicationRequest: FHIRResourceType = "MedicationRequest"
    public static let medicationStatement: FHIRResourceType = "MedicationStatement"
    public static let observation: FHIRResourceType = "Observation"
    public static let procedure: FHIRResourceType = "Procedure"
    public static let patient: FHIRResourceType = "Patient"
    public static let medication: FHIRResourceType = "Medication"
    public static let bundle: FHIRResourceType = "Bundle"

    /// Whether the name has the shape FHIR requires: an ASCII letter, then letters or digits.
    public var isWellFormed: Bool {
        guard let first = rawValue.utf8.first, (0x41...0x5A).contains(first) || (0x61...0x7A).contains(first) else { return false }
        return rawValue.utf8.count <= 64 && rawValue.utf8.allSatisfy {
            (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
        }
    }
}
