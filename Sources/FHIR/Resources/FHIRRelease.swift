/// A FHIR release, as HealthKit's `HKFHIRRelease` names them.
public enum FHIRRelease: String, Sendable, Hashable, Codable, CaseIterable {
    /// FHIR DSTU2 (1.0.x).
    case dstu2 = "DSTU2"
    /// FHIR R4 (4.0.x).
    case r4 = "R4"
    /// A release this package does not know.
    case unknown
}
