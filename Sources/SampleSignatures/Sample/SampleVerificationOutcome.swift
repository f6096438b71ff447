/// The verdict on a stored sample and its digital signature.
public enum SampleVerificationOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The signature verifies under a trusted key and the stored values equal the signed ones.
    case valid
    /// The signature cannot be trusted; the reason says why.
    case invalid(SampleSignatureFailure)
    /// The signature verifies, but these stored fields differ from the signed content
    /// (names from ``SampleField``; a differing extra is reported as `extras[key]`).
    case tampered(fields: [String])

    /// A human-readable verdict.
    public var description: String {
        switch self {
        case .valid: "valid"
        case .invalid(let failure): "invalid: \(failure)"
        case .tampered(let fields): "tampered: " + fields.joined(separator: ", ")
        }
    }
}
