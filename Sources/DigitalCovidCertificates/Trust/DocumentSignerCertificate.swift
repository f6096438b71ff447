import Crypto
import Foundation
import JOSE
import SwiftASN1
import X509
import _CryptoExtras

/// A Document Signer Certificate: the X.509 certificate whose key signs DCCs.
///
/// Parsed once when the trust list is loaded: its `kid` (the first 8 bytes of the SHA-256 of
/// its DER), its key, its validity and the DCC kinds its extended key usage allows.
public struct DocumentSignerCertificate: Sendable {
    /// The key, ready to verify.
    public enum Key: Sendable {
        /// EC P-256, for ES256; a JWK so a key in steady use gets the precomputed fast path.
        case p256(JSONWebKey)
        /// RSA, for PS256.
        case rsa(_RSA.Signing.PublicKey)
    }

    /// The extended-key-usage OIDs for DCC kinds (eHN DCC trust framework). The harness also
    /// accepts the misprinted `…4.1.0.1847…` arcs some test certificates carry.
    public static let keyUsageOIDs: [DCCKind: Set<String>] = [
        .test: ["1.3.6.1.4.1.1847.2021.1.1", "1.3.6.1.4.1.0.1847.2021.1.1"],
        .vaccination: ["1.3.6.1.4.1.1847.2021.1.2", "1.3.6.1.4.1.0.1847.2021.1.2"],
        .recovery: ["1.3.6.1.4.1.1847.2021.1.3", "1.3.6.1.4.1.0.1847.2021.1.3"],
    ]

    /// The certificate's DER.
    public let der: [UInt8]
    /// The `kid`: the first 8 bytes of SHA-256(DER).
    public let keyIdentifier: [UInt8]
    /// The subject, as text.
    public let subject: String
    /// The subject's country (C), if named.
    public let country: String?
    /// The start of the validity period.
    public let notValidBefore: Date
    /// The end of the validity period.
    public let notValidAfter: Date
    /// Every extended-key-usage OID, dotted.
    public let extendedKeyUsages: Set<String>
    /// The public key.
    public let key: Key

    /// Reads a certificate from its DER.
    public init(der: [UInt8]) throws(DSCError) {
        let fields: CertificateFields
        do { fields = try CertificateFields(der: der) } catch { throw .certificate("\(error)") }
        if let p256 = P256.Signing.PublicKey(fields.publicKey) {
            key = .p256(JSONWebKey(p256PublicKey: p256))
        } else if let rsa = _RSA.Signing.PublicKey(fields.publicKey) {
            key = .rsa(rsa)
        } else {
            throw .unsupportedKey
        }
        self.der = fields.der
        self.keyIdentifier = Array(SHA256.hash(data: fields.der).prefix(8))
        self.subject = String(describing: fields.subject)
        self.country = fields.subject.lazy.flatMap { $0 }.first { $0.type == .RDNAttributeType.countryName }.map { String(describing: $0.value) }
        self.notValidBefore = fields.notValidBefore
        self.notValidAfter = fields.notValidAfter
        self.extendedKeyUsages = Set(fields.extendedKeyUsages)
    }

    /// Whether the extended key usage allows signing certificates of `kind`: it has none (so
    /// all kinds), or it names this kind's. A certificate whose usages name no DCC kind at all
    /// (only, say, ICAO document signing) allows none, as the member states' harness rules.
    public func allows(_ kind: DCCKind) -> Bool {
        extendedKeyUsages.isEmpty || !extendedKeyUsages.isDisjoint(with: Self.keyUsageOIDs[kind] ?? [])
    }

    /// The COSE algorithm this key verifies.
    public var algorithm: COSEAlgorithm {
        switch key {
        case .p256: return .es256
        case .rsa: return .ps256
        }
    }

    /// Whether `signature` over `message` verifies with this key under `algorithm`.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8], algorithm: COSEAlgorithm) -> Bool {
        switch (key, algorithm) {
        case (.p256(let jwk), .es256):
            guard signature.count == 64 else { return false }
            return message.withUnsafeBytes { jwk.isValidES256Signature(signature, for: $0) }
        case (.rsa(let rsa), .ps256):
            return rsa.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: message, padding: .PSS)
        default:
            return false
        }
    }
}

/// Why a certificate cannot serve as a DSC.
public enum DSCError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not an X.509 certificate.
    case certificate(String)
    /// A key that is neither EC P-256 nor RSA.
    case unsupportedKey

    public var description: String {
        switch self {
        case .certificate(let s): return "not an X.509 certificate: \(s)"
        case .unsupportedKey: return "the certificate's key is neither EC P-256 nor RSA"
        }
    }
}
