import Crypto
import Foundation
import SwiftASN1

/// Signs content as a CMS SignedData (RFC 5652) in DER: SHA-256 digest,
/// ecdsa-with-SHA256 signature, one signer.
///
/// Without a certificate the signer is named by subject key identifier
/// (SignerInfo version 3, SHA-1 of the public key point, as OpenSSL computes
/// it). With a certificate it is named by issuer and serial number (version 1)
/// unless ``SignerIdentification/subjectKeyIdentifier`` is asked for, and the
/// certificate is embedded unless `embedCertificate` is `false`.
public struct CMSSigner: Sendable {
    /// How the SignerInfo names its signer.
    public enum SignerIdentification: Sendable, Hashable {
        /// `subjectKeyIdentifier [0]`, SignerInfo version 3.
        case subjectKeyIdentifier
        /// `issuerAndSerialNumber`, SignerInfo version 1; needs a certificate.
        case issuerAndSerialNumber
    }

    /// The device's private P-256 key; it signs with ECDSA over SHA-256.
    public let key: DeviceSigningKey
    /// The signer's certificate, if any.
    public let certificate: DeviceCertificate?
    /// How the signer is named.
    public let identification: SignerIdentification
    /// Whether the certificate goes into `SignedData.certificates`.
    public let embedsCertificate: Bool

    /// Creates a signer, checking that the certificate, if any, certifies `key`.
    ///
    /// - Parameters:
    ///   - key: the device's private key.
    ///   - certificate: the key's certificate; it must certify `key`.
    ///   - identification: defaults to issuer and serial number with a certificate, subject key identifier without.
    ///   - embedCertificate: whether to include the certificate in the message (default `true`).
    /// - Throws: ``SigningError/certificateKeyMismatch`` or ``SigningError/certificateRequired``.
    public init(
        key: DeviceSigningKey,
        certificate: DeviceCertificate? = nil,
        identification: SignerIdentification? = nil,
        embedCertificate: Bool = true
    ) throws(SigningError) {
        if let certificate, certificate.publicKey != key.publicKey {
            throw .certificateKeyMismatch
        }
        let identification = identification ?? (certificate == nil ? .subjectKeyIdentifier : .issuerAndSerialNumber)
        if identification == .issuerAndSerialNumber, certificate == nil {
            throw .certificateRequired
        }
        self.key = key
        self.certificate = certificate
        self.identification = identification
        self.embedsCertificate = embedCertificate && certificate != nil
    }

    /// Signs `content` and returns the DER `ContentInfo`.
    ///
    /// - Throws: ``SigningError/signedAttributesRequired`` for a content type other than
    ///   `id-data` without signed attributes.
    public func sign(_ content: some DataProtocol, options: CMSSigningOptions = CMSSigningOptions()) throws(SigningError) -> CMSSignedMessage {
        let content = [UInt8](content)
        let contentDigest = SHA256.hash(data: content)

        let signedAttributes: [Attribute]?
        let signature: P256.Signing.ECDSASignature
        do {
            if options.includesSignedAttributes {
                let attributes = try SignedAttributes.make(
                    contentType: options.contentType, digest: contentDigest, signingTime: options.signingTime
                )
                let signingInput = try SignerInfo.signedAttributesSigningInput(attributes)
                signature = try key.key.signature(for: SHA256.hash(data: signingInput))
                signedAttributes = attributes
            } else {
                guard options.contentType == CMSObjectIdentifier.data else {
                    throw SigningError.signedAttributesRequired
                }
                signature = try key.key.signature(for: contentDigest)
                signedAttributes = nil
            }
        } catch let error as SigningError {
            throw error
        } catch {
            throw .encodingFailed
        }

        let signerIdentifier: SignerIdentifier
        switch (identification, certificate) {
        case (.issuerAndSerialNumber, let certificate?):
            signerIdentifier = .issuerAndSerialNumber(IssuerAndSerialNumber(certificate: certificate.certificate))
        default:
            // The certificate's own SubjectKeyIdentifier, if it has one, is what other tools look up.
            let keyIdentifier = certificate?.subjectKeyIdentifierExtension ?? key.publicKey.subjectKeyIdentifier
            signerIdentifier = .subjectKeyIdentifier(ArraySlice(keyIdentifier))
        }

        let signerInfo = SignerInfo(
            signerIdentifier: signerIdentifier,
            digestAlgorithm: .sha256,
            signedAttributes: signedAttributes,
            signatureAlgorithm: .ecdsaWithSHA256,
            signature: ArraySlice(signature.derRepresentation)
        )
        do {
            var certificates: [ASN1Any]?
            if embedsCertificate, let certificate {
                certificates = [try ASN1Any(erasing: certificate.certificate)]
            }
            let signedData = SignedData(
                digestAlgorithms: [.sha256],
                encapContentInfo: EncapsulatedContentInfo(
                    eContentType: options.contentType,
                    eContent: options.detached ? nil : content[...]
                ),
                certificates: certificates,
                signerInfos: [signerInfo]
            )
            let der = try DEREncoding.encode(ContentInfo(signedData: signedData))
            return CMSSignedMessage(derRepresentation: der)
        } catch {
            throw .encodingFailed
        }
    }
}
