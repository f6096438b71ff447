import CBOR
import Crypto
import CryptoExtras
import Foundation

/// A credential's public key, read from its COSE_Key (RFC 9052 §7, RFC 9053 §2.1, RFC 8812 §2):
/// ES256 (EC2, P-256) or RS256 (RSA, PKCS #1 v1.5 with SHA-256, at least 2048 bits). The COSE
/// bytes are what a server stores.
public struct CredentialPublicKey: Sendable, Hashable {
    /// The COSE algorithms accepted: ES256 first, as browsers are asked to prefer it.
    public static let acceptedAlgorithms: [Int64] = [-7, -257]

    /// The COSE_Key as the authenticator encoded it.
    public let cose: [UInt8]
    /// The COSE algorithm (`-7` ES256, `-257` RS256).
    public let algorithm: Int64
    private let key: Key

    private enum Key: @unchecked Sendable, Hashable {
        case es256(P256.Signing.PublicKey)
        case rs256(_RSA.Signing.PublicKey)

        static func == (a: Key, b: Key) -> Bool {
            switch (a, b) {
            case (.es256(let x), .es256(let y)): x.rawRepresentation == y.rawRepresentation
            case (.rs256(let x), .rs256(let y)): x.derRepresentation == y.derRepresentation
            default: false
            }
        }

        func hash(into hasher: inout Hasher) {
            switch self {
            case .es256(let k): hasher.combine(k.rawRepresentation)
            case .rs256(let k): hasher.combine(k.derRepresentation)
            }
        }
    }

    /// Reads a stored or received COSE_Key.
    ///
    /// - Throws: ``WebAuthnError/cbor(_:in:)``, ``WebAuthnError/publicKeyInvalid(reason:)`` or
    ///   ``WebAuthnError/algorithmNotAccepted(_:)``.
    public init(cose bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do { value = try CBORReader.decode(bytes, limits: .init(maxDepth: 2, maxItems: 32)) } catch { throw .cbor(error, in: "the COSE key") }
        try self.init(value, encoded: bytes)
    }

    init(_ value: CBORValue, encoded: [UInt8]) throws(WebAuthnError) {
        guard value.mapEntries != nil else { throw .publicKeyInvalid(reason: "not a map") }
        guard let kty = value[Int64(1)]?.int64 else { throw .publicKeyInvalid(reason: "no key type (1)") }
        guard let alg = value[Int64(3)]?.int64 else { throw .publicKeyInvalid(reason: "no algorithm (3)") }
        switch alg {
        case -7:
            guard kty == 2 else { throw .publicKeyInvalid(reason: "ES256 needs key type EC2 (2), not \(kty)") }
            guard value[Int64(-1)]?.int64 == 1 else { throw .publicKeyInvalid(reason: "ES256 needs curve P-256 (1)") }
            guard let x = value[Int64(-2)]?.bytes, let y = value[Int64(-3)]?.bytes, x.count == 32, y.count == 32 else {
                throw .publicKeyInvalid(reason: "P-256 coordinates x (-2) and y (-3) must be 32 bytes each")
            }
            do { key = .es256(try P256.Signing.PublicKey(x963Representation: [0x04] + x + y)) } catch {
                throw .publicKeyInvalid(reason: "the point is not on P-256")
            }
        case -257:
            guard kty == 3 else { throw .publicKeyInvalid(reason: "RS256 needs key type RSA (3), not \(kty)") }
            guard let n = value[Int64(-1)]?.bytes, let e = value[Int64(-2)]?.bytes, !n.isEmpty, !e.isEmpty else {
                throw .publicKeyInvalid(reason: "RSA needs a modulus n (-1) and an exponent e (-2)")
            }
            let bits = n.count * 8 - (n.first.map { $0.leadingZeroBitCount } ?? 8)
            guard bits >= 2048, bits <= 8192 else { throw .publicKeyInvalid(reason: "a \(bits)-bit RSA modulus (2048 to 8192 bits are accepted)") }
            do { key = .rs256(try _RSA.Signing.PublicKey(n: n, e: e)) } catch { throw .publicKeyInvalid(reason: "the RSA key is not valid") }
        default:
            throw .algorithmNotAccepted(alg)
        }
        (cose, algorithm) = (encoded, alg)
    }

    /// Whether `signature` (DER ECDSA for ES256, PKCS #1 v1.5 for RS256) signs `message`.
    public func verifies(_ signature: [UInt8], over message: [UInt8]) -> Bool {
        switch key {
        case .es256(let k):
            guard let s = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return k.isValidSignature(s, for: message)
        case .rs256(let k):
            return k.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: message, padding: .insecurePKCS1v1_5)
        }
    }
}
