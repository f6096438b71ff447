import Crypto
import Foundation
import SwiftASN1

/// A device's P-256 private signing key.
///
/// Generate one, or import PKCS #8 (`PRIVATE KEY`) or SEC 1
/// (`EC PRIVATE KEY`) from PEM or DER; export in both forms. The public half
/// is ``publicKey``.
public struct DeviceSigningKey: Sendable {
    /// The swift-crypto key.
    public let key: P256.Signing.PrivateKey

    /// Generates a new random key.
    public init() {
        self.key = P256.Signing.PrivateKey()
    }

    /// Wraps a swift-crypto P-256 private key.
    public init(_ key: P256.Signing.PrivateKey) {
        self.key = key
    }

    /// Imports a DER private key, PKCS #8 (`PrivateKeyInfo`) or SEC 1 (`ECPrivateKey`).
    ///
    /// A public key stored beside the private key must match it.
    /// - Throws: ``KeyError/unsupportedCurve(_:)`` for keys on other curves,
    ///   ``KeyError/malformedDER(_:)`` for bytes that are not strict DER.
    public init(derRepresentation der: some DataProtocol) throws(KeyError) {
        let bytes = [UInt8](der)
        let ecKey: ECPrivateKey
        do {
            let root = try DERDecoding.parse(bytes)
            if Self.looksLikePKCS8(root) {
                ecKey = try PrivateKeyInfo(derEncoded: root).privateKey
            } else {
                ecKey = try ECPrivateKey(derEncoded: root)
            }
        } catch let error as KeyError {
            throw error
        } catch let error as DERFaultError {
            throw .malformedDER(error.fault)
        } catch {
            throw .malformedDER(DERFault(kind: DERDecoding.kind(for: error), structure: .ecPrivateKey))
        }
        if let curve = ecKey.curve, curve != CMSObjectIdentifier.p256 {
            throw .unsupportedCurve(curve)
        }
        guard ecKey.privateKey.count == 32,
            let key = try? P256.Signing.PrivateKey(rawRepresentation: ecKey.privateKey)
        else {
            throw .invalidPrivateKey
        }
        if let stored = ecKey.publicKey {
            guard stored.paddingBits == 0, stored.bytes.elementsEqual(key.publicKey.x963Representation) else {
                throw .publicKeyMismatch
            }
        }
        self.key = key
    }

    /// Imports a PEM `PRIVATE KEY` (PKCS #8) or `EC PRIVATE KEY` (SEC 1) document.
    public init(pemRepresentation pem: String) throws(KeyError) {
        guard let (label, der) = PEM.decode(pem) else { throw .invalidPEM }
        guard label == "PRIVATE KEY" || label == "EC PRIVATE KEY" else {
            throw .unexpectedPEMLabel(.privateKey)
        }
        try self.init(derRepresentation: der)
    }

    /// The public half.
    public var publicKey: DevicePublicKey {
        DevicePublicKey(key.publicKey)
    }

    /// PKCS #8 DER (`PrivateKeyInfo` v1 with an embedded SEC 1 key carrying the public key).
    public var pkcs8DERRepresentation: [UInt8] {
        let info = PrivateKeyInfo(
            algorithm: .ecPublicKey(curve: CMSObjectIdentifier.p256),
            privateKey: sec1Key(includingCurve: false)
        )
        // Serializing in-memory values of fixed shape cannot fail.
        return try! DEREncoding.encode(info)
    }

    /// PKCS #8 PEM (`-----BEGIN PRIVATE KEY-----`).
    public var pkcs8PEMRepresentation: String {
        PEM.encode(pkcs8DERRepresentation, label: "PRIVATE KEY")
    }

    /// SEC 1 DER (`ECPrivateKey` with the named curve and the public key).
    public var sec1DERRepresentation: [UInt8] {
        // Serializing in-memory values of fixed shape cannot fail.
        try! DEREncoding.encode(sec1Key(includingCurve: true))
    }

    /// SEC 1 PEM (`-----BEGIN EC PRIVATE KEY-----`).
    public var sec1PEMRepresentation: String {
        PEM.encode(sec1DERRepresentation, label: "EC PRIVATE KEY")
    }

    private func sec1Key(includingCurve: Bool) -> ECPrivateKey {
        ECPrivateKey(
            privateKey: ArraySlice(key.rawRepresentation),
            curve: includingCurve ? CMSObjectIdentifier.p256 : nil,
            publicKey: ASN1BitString(bytes: ArraySlice(key.publicKey.x963Representation))
        )
    }

    /// PKCS #8 keys have an AlgorithmIdentifier SEQUENCE second; SEC 1 keys an OCTET STRING.
    private static func looksLikePKCS8(_ root: ASN1Node) -> Bool {
        guard case .constructed(let children) = root.content else { return false }
        var iterator = children.makeIterator()
        _ = iterator.next()
        return iterator.next()?.identifier == .sequence
    }
}
