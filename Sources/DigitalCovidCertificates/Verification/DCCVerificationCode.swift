import CBOR
import VerifiableRecords

/// The codes of DCC verification; documented in `docs/verification-codes.md`.
extension VerificationCode {
    /// The text does not start with `HC1:`.
    public static let dccPrefix: VerificationCode = "dcc.prefix"
    /// Not base45.
    public static let dccBase45: VerificationCode = "dcc.base45"
    /// Not zlib, corrupt, or over the inflate cap.
    public static let dccZlib: VerificationCode = "dcc.zlib"
    /// Well-formed CBOR that is not COSE_Sign1.
    public static let dccCOSE: VerificationCode = "dcc.cose"
    /// Bytes that are not well-formed CBOR within the reader's bounds.
    public static let dccCBOR: VerificationCode = "dcc.cbor"
    /// CWT claims missing or mistyped.
    public static let dccClaims: VerificationCode = "dcc.claims"
    /// The payload breaks the DCC JSON schema of its version.
    public static let dccSchema: VerificationCode = "dcc.schema"
    /// A code the EU value sets do not list (a warning).
    public static let dccValueSet: VerificationCode = "dcc.valueSet"
    /// No `alg`, or one other than ES256 and PS256, or one the signer's key cannot use.
    public static let dccAlgorithm: VerificationCode = "dcc.algorithm"
    /// No `kid`, or no trusted DSC with it.
    public static let dccKeyNotFound: VerificationCode = "dcc.key.notFound"
    /// The signature does not verify.
    public static let dccSignature: VerificationCode = "dcc.signature"
    /// `exp` is before the verification time.
    public static let dccExpired: VerificationCode = "dcc.expired"
    /// `iat` is after the verification time.
    public static let dccNotYetValid: VerificationCode = "dcc.notYetValid"
    /// The DSC's validity does not cover the certificate's `iat`…`exp` or the verification time.
    public static let dccCertificateValidity: VerificationCode = "dcc.certificate.validity"
    /// The DSC's extended key usage does not allow this kind of certificate.
    public static let dccKeyUsage: VerificationCode = "dcc.keyUsage"
}

extension DCCDecodingError {
    /// The report's issue for this error.
    public var issue: VerificationIssue {
        switch self {
        case .prefix: return VerificationIssue(.dccPrefix, description)
        case .base45: return VerificationIssue(.dccBase45, description)
        case .zlib: return VerificationIssue(.dccZlib, description)
        case .cose(.cbor): return VerificationIssue(.dccCBOR, "COSE: \(description)")
        case .cose(.structure): return VerificationIssue(.dccCOSE, description)
        case .claims(.cbor): return VerificationIssue(.dccCBOR, description)
        case .claims(.claims): return VerificationIssue(.dccClaims, description)
        }
    }
}
