import Foundation

/// A key or certificate that CMS verification may accept signatures from.
///
/// A signer is found in a message by subject key identifier (the SHA-1 of the
/// key's point, or the certificate's SubjectKeyIdentifier extension) or by
/// issuer and serial number (only when a certificate is trusted, or when the
/// message embeds a certificate for the trusted key).
public struct TrustedSigner: Sendable, Hashable {
    /// The key signatures are checked with.
    public let publicKey: DevicePublicKey
    /// The certificate, when trust was given as a certificate.
    public let certificate: DeviceCertificate?
    /// Subject key identifiers that name this signer.
    let subjectKeyIdentifiers: [[UInt8]]

    /// Trusts a bare public key.
    public init(publicKey: DevicePublicKey) {
        self.publicKey = publicKey
        self.certificate = nil
        self.subjectKeyIdentifiers = [publicKey.subjectKeyIdentifier]
    }

    /// Trusts a certificate's key, also matching its issuer and serial number.
    public init(certificate: DeviceCertificate) {
        self.publicKey = certificate.publicKey
        self.certificate = certificate
        var identifiers = [certificate.publicKey.subjectKeyIdentifier]
        if let fromExtension = certificate.subjectKeyIdentifierExtension, fromExtension != identifiers[0] {
            identifiers.append(fromExtension)
        }
        self.subjectKeyIdentifiers = identifiers
    }

    /// Trusts a PEM `PUBLIC KEY` or `CERTIFICATE`.
    public init(pemRepresentation pem: String) throws(KeyError) {
        guard let (label, _) = PEM.decode(pem) else { throw .invalidPEM }
        switch label {
        case "PUBLIC KEY": self.init(publicKey: try DevicePublicKey(pemRepresentation: pem))
        case "CERTIFICATE": self.init(certificate: try DeviceCertificate(pemRepresentation: pem))
        default: throw .unexpectedPEMLabel(.publicKeyOrCertificate)
        }
    }

    /// Trusts a DER `SubjectPublicKeyInfo` or certificate (told apart by shape).
    public init(derRepresentation der: some DataProtocol) throws(KeyError) {
        let bytes = [UInt8](der)
        if Self.looksLikeCertificate(bytes) {
            self.init(certificate: try DeviceCertificate(derRepresentation: bytes))
        } else {
            self.init(publicKey: try DevicePublicKey(derRepresentation: bytes))
        }
    }

    /// Trusts a JSON Web Key (`{"kty":"EC","crv":"P-256","x":…,"y":…}`).
    public init(jwk json: String) throws(KeyError) {
        self.init(publicKey: try DevicePublicKey(jwk: json))
    }

    /// A certificate starts SEQUENCE { SEQUENCE (tbsCertificate) { [0] version | INTEGER … } };
    /// a SubjectPublicKeyInfo starts SEQUENCE { SEQUENCE (algorithm) { OBJECT IDENTIFIER … } }.
    private static func looksLikeCertificate(_ bytes: [UInt8]) -> Bool {
        guard let node = try? DERDecoding.parse(bytes), case .constructed(let children) = node.content,
            let first = children.first(where: { _ in true }), case .constructed(let inner) = first.content,
            let firstInner = inner.first(where: { _ in true })
        else { return false }
        return firstInner.identifier != .objectIdentifier
    }
}
