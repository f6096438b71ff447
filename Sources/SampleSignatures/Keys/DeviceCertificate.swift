import Crypto
import Foundation
import SwiftASN1
import X509

/// An X.509 certificate for a device's P-256 key, parsed and minted with
/// swift-certificates.
///
/// A certificate lets a CMS signature name its signer by issuer and serial
/// number and lets OpenSSL check the signature with `-certfile`/`-CAfile`.
public struct DeviceCertificate: Sendable, Hashable {
    /// The swift-certificates certificate.
    public let certificate: Certificate
    /// The certified P-256 key.
    public let publicKey: DevicePublicKey

    /// Wraps a certificate, checking that it certifies a P-256 key.
    ///
    /// - Throws: ``KeyError/unsupportedCurve(_:)`` for a P-384 (or other curve) certificate,
    ///   ``KeyError/unsupportedKeyAlgorithm(_:)`` for RSA and Ed25519.
    public init(_ certificate: Certificate) throws(KeyError) {
        self.certificate = certificate
        self.publicKey = try DevicePublicKey(certificatePublicKey: certificate.publicKey)
    }

    /// Parses a DER certificate.
    public init(derRepresentation der: some DataProtocol) throws(KeyError) {
        let bytes = [UInt8](der)
        let certificate: Certificate
        do {
            certificate = try Certificate(derEncoded: bytes)
        } catch {
            if let fault = DERScanner.firstFault(in: bytes, maximumLength: DERDecoding.defaultMaximumLength) {
                throw .malformedDER(DERFault(kind: fault.kind, structure: .certificate, offset: fault.offset))
            }
            throw .invalidCertificate
        }
        try self.init(certificate)
    }

    /// Parses a PEM `CERTIFICATE` document.
    public init(pemRepresentation pem: String) throws(KeyError) {
        guard let (label, der) = PEM.decode(pem) else { throw .invalidPEM }
        guard label == "CERTIFICATE" else { throw .unexpectedPEMLabel(.certificate) }
        try self.init(derRepresentation: der)
    }

    /// Mints a self-signed certificate for `key`.
    ///
    /// The certificate carries a SubjectKeyIdentifier (SHA-1 of the point, as
    /// OpenSSL computes it), BasicConstraints (critical) and KeyUsage
    /// (critical: digitalSignature, plus keyCertSign when it is a CA). With
    /// `isCertificateAuthority: true` (the default) it can serve as its own
    /// trust anchor, e.g. `openssl cms -verify -CAfile cert.pem`.
    ///
    /// - Parameters:
    ///   - subject: the subject and issuer name, e.g. `"CN=Glucose Meter Co, O=Example"`.
    ///   - key: the key to certify and sign with.
    ///   - serialNumber: big-endian serial number; a random 20-byte one when `nil`.
    ///   - notValidBefore: start of validity; defaults to an hour ago.
    ///   - notValidAfter: end of validity; defaults to ten years from now.
    ///   - isCertificateAuthority: whether BasicConstraints says CA.
    public static func selfSigned(
        subject: String,
        key: DeviceSigningKey,
        serialNumber: [UInt8]? = nil,
        notValidBefore: Date = Date(timeIntervalSinceNow: -3600),
        notValidAfter: Date = Date(timeIntervalSinceNow: 10 * 365 * 86_400),
        isCertificateAuthority: Bool = true
    ) throws(KeyError) -> DeviceCertificate {
        let name = try SubjectName.parse(subject)
        let certificate: Certificate
        do {
            let extensions = try Certificate.Extensions {
                Critical(
                    isCertificateAuthority
                        ? BasicConstraints.isCertificateAuthority(maxPathLength: nil)
                        : BasicConstraints.notCertificateAuthority
                )
                Critical(KeyUsage(digitalSignature: true, keyCertSign: isCertificateAuthority))
                SubjectKeyIdentifier(keyIdentifier: ArraySlice(key.publicKey.subjectKeyIdentifier))
            }
            certificate = try Certificate(
                version: .v3,
                serialNumber: serialNumber.map { Certificate.SerialNumber(bytes: $0) } ?? Certificate.SerialNumber(),
                publicKey: Certificate.PublicKey(key.key.publicKey),
                notValidBefore: notValidBefore,
                notValidAfter: notValidAfter,
                issuer: name,
                subject: name,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: extensions,
                issuerPrivateKey: Certificate.PrivateKey(key.key)
            )
        } catch {
            throw .certificateCreationFailed
        }
        return try DeviceCertificate(certificate)
    }

    /// The DER encoding.
    public var derRepresentation: [UInt8] {
        var coder = DER.Serializer()
        // Re-serializing a parsed or freshly built certificate cannot fail.
        try! coder.serialize(certificate)
        return coder.serializedBytes
    }

    /// The PEM `CERTIFICATE` document.
    public var pemRepresentation: String {
        PEM.encode(derRepresentation, label: "CERTIFICATE")
    }

    /// The SubjectKeyIdentifier extension's value, if the certificate has one.
    public var subjectKeyIdentifierExtension: [UInt8]? {
        guard let extensionValue = try? certificate.extensions.subjectKeyIdentifier else { return nil }
        return Array(extensionValue.keyIdentifier)
    }
}
