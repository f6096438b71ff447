/// Why a sample's stored signature is invalid (as opposed to tampered).
public enum SampleSignatureFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The CMS signature itself failed: bad base64, malformed, signer not found, bad signature…
    case signature(SignatureVerificationError)
    /// The signature verified but its content is not a valid ``SignedSampleContent``.
    case signedContent(SampleContentError)
    /// The signature is detached and the stored values cannot be encoded to check it against.
    case storedValues(SampleContentError)

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .signature(let error): "signature: \(error)"
        case .signedContent(let error): "signed content: \(error)"
        case .storedValues(let error): "stored values: \(error)"
        }
    }
}
