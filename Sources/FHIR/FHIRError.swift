/// Why FHIR content could not be read.
public enum FHIRError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not JSON.
    case json(JSONError)
    /// The JSON is not an object, so it cannot be a resource.
    case notAnObject
    /// Valid JSON without `resourceType`: plainly not FHIR.
    case notFHIR
    /// `resourceType` is present but is not a string naming a type.
    case invalidResourceType(found: String, offset: Int?)
    /// A resource without a usable `id` where one is required.
    case missingIdentifier(resourceType: String, offset: Int?)
    /// An `id` that is not a string of FHIR id characters.
    case invalidIdentifier(resourceType: String, id: String, offset: Int?)
    /// A bundle entry whose `resource` is not a resource.
    case invalidBundleEntry(index: Int, reason: String)
    /// More entries in a bundle than the limit allows.
    case tooManyEntries(limit: Int)
    /// A version string that is not `major.minor[.patch]`.
    case invalidVersion(String)
    /// An NDJSON line longer than the limit.
    case lineTooLong(line: Int, limit: Int)
    /// An NDJSON line that could not be read.
    case ndjsonLine(line: Int, error: FHIRErrorBox)

    public var description: String {
        switch self {
        case .json(let e): return e.description
        case .notAnObject: return "not a FHIR resource: the JSON value is not an object"
        case .notFHIR: return "not FHIR: the JSON object has no resourceType"
        case .invalidResourceType(let found, let offset):
            return "invalid resourceType \"\(found)\"" + Self.at(offset)
        case .missingIdentifier(let type, let offset):
            return "\(type) has no id" + Self.at(offset)
        case .invalidIdentifier(let type, let id, let offset):
            return "\(type) has an invalid id \"\(id.prefix(80))\"" + Self.at(offset)
        case .invalidBundleEntry(let index, let reason):
            return "bundle entry \(index): \(reason)"
        case .tooManyEntries(let limit): return "bundle has more than \(limit) entries"
        case .invalidVersion(let v): return "invalid FHIR version \"\(v.prefix(40))\""
        case .lineTooLong(let line, let limit): return "line \(line) is longer than \(limit) bytes"
        case .ndjsonLine(let line, let box): return "line \(line): \(box.error)"
        }
    }

    private static func at(_ offset: Int?) -> String {
        offset.map { " at byte \($0)" } ?? ""
    }
}

/// Boxes a nested ``FHIRError`` so the enum can refer to itself.
public final class FHIRErrorBox: Sendable, Equatable {
    /// The error inside, e.g. what went wrong on one NDJSON line (``FHIRError/ndjsonLine(line:error:)``).
    public let error: FHIRError
    /// Wraps `error`; two boxes are equal when the errors they hold are.
    public init(_ error: FHIRError) { self.error = error }
    public static func == (lhs: FHIRErrorBox, rhs: FHIRErrorBox) -> Bool { lhs.error == rhs.error }
}
