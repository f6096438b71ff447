import Crypto
import Foundation
import SwiftASN1
import X509

/// Certificates made by the tests for x5c checks.
enum TestPKI {
    static func name(_ cn: String) throws -> DistinguishedName {
        try DistinguishedName { CommonName(cn) }
    }

    static func ca(_ cn: String, key: P256.Signing.PrivateKey) throws -> Certificate {
        let n = try name(cn)
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: Date(timeIntervalSince1970: 1_600_000_000), notValidAfter: Date(timeIntervalSince1970: 2_000_000_000),
            issuer: n, subject: n, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                KeyUsage(keyCertSign: true)
            },
            issuerPrivateKey: .init(key))
    }

    static func leaf(uri: String, key: P256.Signing.PublicKey, issuer: Certificate, issuerKey: P256.Signing.PrivateKey) throws -> Certificate {
        try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key),
            notValidBefore: Date(timeIntervalSince1970: 1_600_000_000), notValidAfter: Date(timeIntervalSince1970: 2_000_000_000),
            issuer: issuer.subject, subject: try name("leaf"), signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                SubjectAlternativeNames([.uniformResourceIdentifier(uri)])
                KeyUsage(digitalSignature: true)
            },
            issuerPrivateKey: .init(issuerKey))
    }

    static func base64(_ c: Certificate) throws -> String {
        var s = DER.Serializer()
        try s.serialize(c)
        return Data(s.serializedBytes).base64EncodedString()
    }
}
