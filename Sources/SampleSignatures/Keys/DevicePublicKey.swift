import ByteEncodings
import Crypto
import FHIR
import Foundation
import JOSE
import SwiftASN1
import X509

/// A device's P-256 public key, as a device maker publishes it.
///
/// Import it from a PEM or DER `SubjectPublicKeyInfo`, a JWK, or an X9.63
/// point; export it in the same forms. Its ``subjectKeyIdentifier`` is the
/// SHA-1 of the uncompressed point (RFC 5280 §4.2.1.2 method 1, what OpenSSL
/// computes), which is how a CMS signature made without a certificate names
/// its signer.
public struct DevicePublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The swift-crypto key.
    public let key: P256.Signing.PublicKey
    /// The uncompressed point `04‖x‖y` (65 bytes).
    public let x963Representation: [UInt8]
    /// SHA-1 of ``x963Representation`` (20 bytes).
    public let subjectKeyIdentifier: [UInt8]

    /// Wraps a swift-crypto P-256 public key.
    public init(_ key: P256.Signing.PublicKey) {
        self.key = key
        self.x963Representation = [UInt8](key.x963Representation)
        self.subjectKeyIdentifier = [UInt8](Insecure.SHA1.hash(data: x963Representation))
    }

    /// Imports an X9.63 point: uncompressed (`04‖x‖y`) or compressed (`02`/`03‖x`).
    public init(x963Representation point: some DataProtocol) throws(KeyError) {
        let bytes = [UInt8](point)
        do {
            if bytes.count == 33 {
                self.init(try P256.Signing.PublicKey(compressedRepresentation: bytes))
            } else {
                self.init(try P256.Signing.PublicKey(x963Representation: bytes))
            }
        } catch {
            throw .invalidPublicKey
        }
    }

    /// Imports a DER `SubjectPublicKeyInfo` (`id-ecPublicKey`, named curve P-256).
    ///
    /// - Throws: ``KeyError/unsupportedCurve(_:)`` for a P-384 or other curve,
    ///   ``KeyError/malformedDER(_:)`` for bytes that are not strict DER.
    public init(derRepresentation der: some DataProtocol) throws(KeyError) {
        let info: SubjectPublicKeyInfo
        do {
            info = try SubjectPublicKeyInfo(derEncoded: DERDecoding.parse([UInt8](der)))
        } catch let error as KeyError {
            throw error
        } catch let error as DERFaultError {
            throw .malformedDER(error.fault)
        } catch {
            throw .malformedDER(DERFault(kind: DERDecoding.kind(for: error), structure: .subjectPublicKeyInfo))
        }
        try info.algorithm.requireP256ECKey()
        guard info.subjectPublicKey.paddingBits == 0 else { throw .invalidPublicKey }
        try self.init(x963Representation: Array(info.subjectPublicKey.bytes))
    }

    /// Imports the key of a swift-certificates certificate.
    ///
    /// - Throws: ``KeyError/unsupportedCurve(_:)`` for a P-384 or other curve key.
    public init(certificatePublicKey: Certificate.PublicKey) throws(KeyError) {
        let der: [UInt8]
        do {
            der = try DEREncoding.encode(certificatePublicKey)
        } catch {
            throw .invalidPublicKey
        }
        try self.init(derRepresentation: der)
    }

    /// Imports a PEM `PUBLIC KEY` document.
    public init(pemRepresentation pem: String) throws(KeyError) {
        guard let (label, der) = PEM.decode(pem) else { throw .invalidPEM }
        guard label == "PUBLIC KEY" else { throw .unexpectedPEMLabel(.publicKey) }
        try self.init(derRepresentation: der)
    }

    /// Imports a JSON Web Key `{"kty":"EC","crv":"P-256","x":…,"y":…}` (RFC 7517/7518).
    ///
    /// - Throws: ``KeyError/unsupportedCurve(_:)`` when `crv` is `P-384` or `P-521`,
    ///   ``KeyError/invalidJWK(_:)`` for anything else that is not a P-256 public key.
    public init(jwk json: some DataProtocol) throws(KeyError) {
        do {
            self.init(try JSONWebKey(data: Data(json)).p256PublicKeyWithoutPrivatePart())
        } catch {
            throw KeyError(error)
        }
    }

    /// Imports a JSON Web Key from its text.
    public init(jwk json: String) throws(KeyError) {
        try self.init(jwk: Data(json.utf8))
    }

    /// The DER `SubjectPublicKeyInfo`.
    public var derRepresentation: [UInt8] {
        // Serializing a key info built from a valid point cannot fail.
        try! DEREncoding.encode(SubjectPublicKeyInfo(p256Point: x963Representation))
    }

    /// The PEM `PUBLIC KEY` document.
    public var pemRepresentation: String {
        PEM.encode(derRepresentation, label: "PUBLIC KEY")
    }

    /// The key as a JSON Web Key (members in lexicographic order, as RFC 7638 thumbprints use).
    public var jwkRepresentation: String {
        JSONWriter.minifiedString(.object(JSONWebKey(p256PublicKey: key).json))
    }

    /// The subject key identifier in hex.
    public var description: String {
        "P-256 key " + Hex.encode(subjectKeyIdentifier)
    }

    /// Keys are equal when their points are.
    public static func == (lhs: DevicePublicKey, rhs: DevicePublicKey) -> Bool {
        lhs.x963Representation == rhs.x963Representation
    }

    /// Hashes the point.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(x963Representation)
    }
}
