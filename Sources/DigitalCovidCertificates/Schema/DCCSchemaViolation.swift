/// One way a payload breaks its schema (or, from ``DCCValueSets``, a code the EU value sets do
/// not list).
public struct DCCSchemaViolation: Sendable, Hashable, CustomStringConvertible {
    /// Where in the payload, e.g. `v[0].dn`; empty for the payload itself.
    public let path: String
    /// What is wrong there.
    public let message: String

    /// Makes a violation.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`, or just the message for the payload itself.
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
