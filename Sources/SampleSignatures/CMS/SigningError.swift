/// Why a message or sample could not be signed.
public enum SigningError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The certificate's public key is not the signing key's public key.
    case certificateKeyMismatch
    /// Identification by issuer and serial number was requested without a certificate.
    case certificateRequired
    /// The sample's values cannot be encoded as ``SignedSampleContent``.
    case invalidSample(SampleContentError)
    /// A content type other than `id-data` was asked for without signed attributes (RFC 5652 §5.3).
    case signedAttributesRequired
    /// The signing time cannot be encoded (before year 1 or after 9999).
    case signingTimeOutOfRange
    /// DER serialization failed (not expected for values built by this module).
    case encodingFailed

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .certificateKeyMismatch: "the certificate does not certify the signing key"
        case .certificateRequired: "issuer-and-serial-number identification needs a certificate"
        case .invalidSample(let error): "sample cannot be encoded: \(error)"
        case .signedAttributesRequired: "a content type other than id-data needs signed attributes"
        case .signingTimeOutOfRange: "signing time cannot be encoded"
        case .encodingFailed: "DER serialization failed"
        }
    }
}
