import CBOR
import Crypto
import Deflate
import Foundation
import _CryptoExtras

/// Issues DCCs: for round trips, test data and fuzzing, so none of them needs an outside signer.
public struct DCCIssuer: Sendable {
    /// A DSC's private key.
    public enum SigningKey: Sendable {
        /// EC P-256, signing ES256.
        case p256(P256.Signing.PrivateKey)
        /// RSA, signing PS256.
        case rsa(_RSA.Signing.PrivateKey)

        /// Reads a PEM private key: EC (SEC 1 or PKCS #8) or RSA (PKCS #1 or PKCS #8).
        public init(pem: String) throws(DCCIssuingError) {
            if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
                self = .p256(key)
            } else if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) {
                self = .rsa(key)
            } else {
                throw .key("not a PEM EC P-256 or RSA private key")
            }
        }

        /// `ES256` or `PS256`.
        public var algorithmName: String { algorithm.name }

        var algorithm: COSEAlgorithm {
            switch self {
            case .p256: return .es256
            case .rsa: return .ps256
            }
        }

        var publicKeyDER: Data {
            switch self {
            case .p256(let k): return k.publicKey.derRepresentation
            case .rsa(let k): return k.publicKey.derRepresentation
            }
        }

        func sign(_ message: [UInt8]) throws(DCCIssuingError) -> [UInt8] {
            do {
                switch self {
                case .p256(let k): return Array(try k.signature(for: message).rawRepresentation)
                case .rsa(let k): return Array(try k.signature(for: message, padding: .PSS).rawRepresentation)
                }
            } catch {
                throw .key("signing failed: \(error)")
            }
        }
    }

    /// The private key.
    public let key: SigningKey
    /// The DSC that names the key's public half; its hash is the `kid`.
    public let certificate: DocumentSignerCertificate

    /// Pairs a key with its certificate; refuses a key the certificate does not name.
    public init(key: SigningKey, certificate: DocumentSignerCertificate) throws(DCCIssuingError) {
        let certificateKey: Data
        switch certificate.key {
        case .p256(let jwk):
            guard let k = try? jwk.p256PublicKey() else { throw .key("the certificate's key is not usable") }
            certificateKey = k.derRepresentation
        case .rsa(let k): certificateKey = k.derRepresentation
        }
        guard certificateKey == key.publicKeyDER else { throw .key("the private key does not belong to the certificate") }
        self.key = key
        self.certificate = certificate
    }

    /// The signed certificate as QR text (`HC1:…`): the payload under claim −260 / 1, a
    /// protected header with `alg` and `kid`, COSE tag 18, zlib, base45.
    public func issue(payload: CBORValue, issuer: String?, issuedAt: Date, expiration: Date) throws(DCCIssuingError) -> String {
        guard expiration > issuedAt else { throw .claims("exp must be after iat") }
        let claims = CWTClaims(issuer: issuer, issuedAt: issuedAt, expiration: expiration, certificate: payload)
        let header = [
            CBORMapEntry(.integer(COSESign1.Label.algorithm), .integer(key.algorithm.rawValue)),
            CBORMapEntry(.integer(COSESign1.Label.keyIdentifier), .bytes(certificate.keyIdentifier)),
        ]
        let unsigned = COSESign1(protectedHeader: header, payload: claims.encoded, signature: [])
        let signature = try key.sign(unsigned.signedBytes)
        let message = COSESign1(protectedHeader: header, payload: unsigned.payload, signature: signature)
        return DigitalCovidCertificate.prefix + Base45.encode(Compress.zlib(message.encoded, level: .best))
    }
}

/// Why a DCC cannot be issued.
public enum DCCIssuingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The key is unreadable or does not fit the certificate.
    case key(String)
    /// The claims are inconsistent.
    case claims(String)

    public var description: String {
        switch self {
        case .key(let s): return "signing key: \(s)"
        case .claims(let s): return "claims: \(s)"
        }
    }
}
