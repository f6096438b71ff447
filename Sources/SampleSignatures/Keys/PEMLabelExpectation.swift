/// Which PEM labels an operation accepted, for ``KeyError/unexpectedPEMLabel(_:)``.
public enum PEMLabelExpectation: String, Hashable, Sendable, CustomStringConvertible {
    /// `PRIVATE KEY` (PKCS #8) or `EC PRIVATE KEY` (SEC 1).
    case privateKey = "PRIVATE KEY or EC PRIVATE KEY"
    /// `PUBLIC KEY` (SubjectPublicKeyInfo).
    case publicKey = "PUBLIC KEY"
    /// `CERTIFICATE`.
    case certificate = "CERTIFICATE"
    /// `PUBLIC KEY` or `CERTIFICATE`.
    case publicKeyOrCertificate = "PUBLIC KEY or CERTIFICATE"

    /// The accepted labels.
    public var description: String { rawValue }
}
