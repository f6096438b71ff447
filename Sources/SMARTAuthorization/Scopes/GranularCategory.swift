import Foundation

/// The `?category=[system|]code` of a granular SMART v2 scope, such as
/// `patient/Observation.rs?category=http://terminology.hl7.org/CodeSystem/observation-category|laboratory`.
///
/// The system is optional, as in FHIR token search. Codes are compared the way
/// `ClinicalClassifier` sorts resources: by code, whatever the system.
public struct GranularCategory: Sendable, Hashable, CustomStringConvertible {
    /// The code system, when one was written before `|`.
    public let system: String?
    /// The category code, e.g. `laboratory`.
    public let code: String

    /// A category from its parts.
    public init(system: String?, code: String) {
        self.system = system
        self.code = code
    }

    /// Reads a `category` parameter value: `code`, `system|code` or `|code`; percent-escapes
    /// are decoded. `nil` when the code is empty or the escapes are broken.
    init?(parameterValue raw: Substring) {
        guard let value = String(raw).removingPercentEncoding else { return nil }
        if let bar = value.firstIndex(of: "|") {
            let system = value[..<bar]
            let code = value[value.index(after: bar)...]
            guard !code.isEmpty, !code.contains("|") else { return nil }
            self.init(system: system.isEmpty ? nil : String(system), code: String(code))
        } else {
            guard !value.isEmpty else { return nil }
            self.init(system: nil, code: value)
        }
    }

    /// Whether every resource this category selects is also selected by `other`: the same
    /// code, and the same system unless `other` names none.
    public func isWithin(_ other: GranularCategory) -> Bool {
        code == other.code && (other.system == nil || other.system == system)
    }

    public var description: String { system.map { "\($0)|\(code)" } ?? code }
}
