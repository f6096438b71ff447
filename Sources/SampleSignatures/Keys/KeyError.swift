import SwiftASN1

/// Why a key, JWK or certificate could not be imported, exported or created.
public enum KeyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not strict DER, or not shaped like the key structure named in the fault.
    case malformedDER(DERFault)
    /// The text is not a PEM document.
    case invalidPEM
    /// The PEM document's label is not one this operation accepts.
    case unexpectedPEMLabel(PEMLabelExpectation)
    /// The key's algorithm is not `id-ecPublicKey`.
    case unsupportedKeyAlgorithm(ASN1ObjectIdentifier)
    /// The key is on a curve other than P-256 (for example P-384, 1.3.132.0.34).
    case unsupportedCurve(ASN1ObjectIdentifier)
    /// An EC key names no curve (implicit or explicit curve parameters are not supported).
    case missingCurve
    /// A structure's version is not one that is understood.
    case unsupportedVersion(DERStructure, Int)
    /// The public key point is not a valid P-256 point.
    case invalidPublicKey
    /// The private key scalar is not a valid P-256 private key.
    case invalidPrivateKey
    /// A public key stored beside a private key, or in a certificate, does not match it.
    case publicKeyMismatch
    /// The JSON Web Key is not an EC P-256 public key.
    case invalidJWK(JWKFault)
    /// The certificate could not be parsed by swift-certificates.
    case invalidCertificate
    /// The subject name text (such as `CN=Glucose Meter Co`) could not be parsed.
    case invalidSubjectName(SubjectNameFault)
    /// swift-certificates could not build or sign the certificate.
    case certificateCreationFailed

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .malformedDER(let fault): "malformed key DER: \(fault)"
        case .invalidPEM: "text is not a PEM document"
        case .unexpectedPEMLabel(let expected): "PEM label is not \(expected)"
        case .unsupportedKeyAlgorithm(let oid): "key algorithm \(oid) is not id-ecPublicKey"
        case .unsupportedCurve(let oid): "curve \(oid) is not P-256 (1.2.840.10045.3.1.7)"
        case .missingCurve: "EC key does not name its curve"
        case .unsupportedVersion(let structure, let version): "\(structure) version \(version) is not supported"
        case .invalidPublicKey: "public key is not a valid P-256 point"
        case .invalidPrivateKey: "private key is not a valid P-256 scalar"
        case .publicKeyMismatch: "public key does not belong to the private key"
        case .invalidJWK(let fault): "invalid JWK: \(fault)"
        case .invalidCertificate: "certificate could not be parsed"
        case .invalidSubjectName(let fault): "invalid subject name: \(fault)"
        case .certificateCreationFailed: "certificate could not be created"
        }
    }
}
