import CBOR
import Crypto
import FHIR
import Foundation
import SwiftASN1
import X509
import _CryptoExtras

@testable import DigitalCovidCertificates

/// Document Signer keys and certificates made by the tests (no openssl needed here; the interop
/// script uses openssl's).
struct TestSigner {
    let key: DCCIssuer.SigningKey
    let certificate: DocumentSignerCertificate

    static let jan2021 = Date(timeIntervalSince1970: 1_609_459_200)
    static let jan2031 = Date(timeIntervalSince1970: 1_924_992_000)

    enum KeyKind { case p256, rsa }

    /// A DSC valid from `notBefore` to `notAfter`, with these extended-key-usage OIDs (none: no extension).
    static func make(_ kind: KeyKind = .p256, country: String = "DE", notBefore: Date = jan2021, notAfter: Date = jan2031, usages: [String] = []) throws -> TestSigner {
        let key: DCCIssuer.SigningKey
        let certificateKey: Certificate.PrivateKey
        switch kind {
        case .p256:
            let k = P256.Signing.PrivateKey()
            key = .p256(k)
            certificateKey = .init(k)
        case .rsa:
            let k = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            key = .rsa(k)
            certificateKey = .init(k)
        }
        let name = try DistinguishedName {
            CountryName(country)
            CommonName("Test DSC")
        }
        var extensions = Certificate.Extensions()
        if !usages.isEmpty {
            try extensions.append(Certificate.Extension(ExtendedKeyUsage(usages.map { ExtendedKeyUsage.Usage(oid: try ASN1ObjectIdentifier(dotRepresentation: $0)) }), critical: false))
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: certificateKey.publicKey,
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: name, subject: name,
            signatureAlgorithm: kind == .p256 ? .ecdsaWithSHA256 : .sha256WithRSAEncryption,
            extensions: extensions, issuerPrivateKey: certificateKey)
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return TestSigner(key: key, certificate: try DocumentSignerCertificate(der: serializer.serializedBytes))
    }

    var issuer: DCCIssuer { get throws { try DCCIssuer(key: key, certificate: certificate) } }

    var trustList: DSCTrustList { DSCTrustList([certificate]) }

    /// A 1.3.0 vaccination payload.
    static func vaccination(dob: String = "1964-08-12") -> CBORValue {
        CBORValue(json: try! JSONReader().read(Data("""
            {"ver":"1.3.0","nam":{"fn":"Musterfrau","fnt":"MUSTERFRAU","gn":"Erika","gnt":"ERIKA"},"dob":"\(dob)",
             "v":[{"tg":"840539006","vp":"1119349007","mp":"EU/1/20/1528","ma":"ORG-100030215","dn":2,"sd":2,
                   "dt":"2021-05-29","co":"DE","is":"Robert Koch-Institut","ci":"URN:UVCI:01DE/IZ12345A/5CWLU12RNOB9RXSEOP6FG8#W"}]}
            """.utf8)))
    }

    /// A 1.3.0 test payload.
    static func test() -> CBORValue {
        CBORValue(json: try! JSONReader().read(Data("""
            {"ver":"1.3.0","nam":{"fn":"Musterfrau","fnt":"MUSTERFRAU"},"dob":"1964-08-12",
             "t":[{"tg":"840539006","tt":"LP6464-4","nm":"Roche LightCycler qPCR","sc":"2021-05-30T10:12:22Z","tr":"260415000",
                   "tc":"Testzentrum Köln Hbf","co":"DE","is":"Robert Koch-Institut","ci":"URN:UVCI:01DE/IZ12345A/5CWLU12RNOB9RXSEOP6FG8#T"}]}
            """.utf8)))
    }

    static let iat = Date(timeIntervalSince1970: 1_622_505_600)  // 2021-06-01
    static let exp = Date(timeIntervalSince1970: 1_654_041_600)  // 2022-06-01
    static let during = Date(timeIntervalSince1970: 1_630_000_000)  // 2021-08-26

    func issue(_ payload: CBORValue = TestSigner.vaccination(), iat: Date = TestSigner.iat, exp: Date = TestSigner.exp) throws -> String {
        try issuer.issue(payload: payload, issuer: "DE", issuedAt: iat, expiration: exp)
    }
}

extension DCCVerification {
    var codes: [String] { errors.map(\.code.rawValue) }
}
