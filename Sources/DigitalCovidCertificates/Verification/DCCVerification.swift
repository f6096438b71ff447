import Foundation
import VerifiableRecords

/// The verification report for one DCC.
public struct DCCVerification: Sendable {
    /// Where it came from (a file name, `argument`, `stdin`…).
    public let origin: String
    /// The certificate, when its text decoded.
    public let certificate: DigitalCovidCertificate?
    /// The DSC whose key verified the signature, if one did.
    public let signer: DocumentSignerCertificate?
    /// Every failed check.
    public let errors: [VerificationIssue]
    /// Findings that do not make the certificate invalid.
    public let warnings: [VerificationIssue]

    /// Whether every check passed.
    public var isValid: Bool { errors.isEmpty }

    /// Whether a trusted DSC signed it: only certificates signed by a listed DSC verify at all,
    /// so a valid certificate is a trusted one.
    public var isTrusted: Bool { isValid && signer != nil }

    /// The signature algorithm named in its header, when known.
    public var algorithm: COSEAlgorithm? { certificate?.message.algorithm.flatMap(COSEAlgorithm.init(rawValue:)) }

    /// The verifiable clinical record, when the certificate decoded and its payload has a kind.
    public var record: VerifiableClinicalRecord? { certificate.flatMap(VerifiableClinicalRecord.init(certificate:)) }

    /// The first error with this code, if any.
    public func error(_ code: VerificationCode) -> VerificationIssue? { errors.first { $0.code == code } }
}
