import ByteEncodings
import Crypto
import Foundation
import SwiftASN1
import Testing
import X509
@testable import SampleSignatures

@Suite("Keys and certificates")
struct KeyTests {
    let key = DeviceSigningKey()

    @Test func roundTripsPKCS8PrivateKeys() throws {
        let pem = key.pkcs8PEMRepresentation
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try DeviceSigningKey(pemRepresentation: pem).key.rawRepresentation == key.key.rawRepresentation)
        #expect(try DeviceSigningKey(derRepresentation: key.pkcs8DERRepresentation).publicKey == key.publicKey)
        // swift-crypto reads our PKCS #8 too.
        #expect(try P256.Signing.PrivateKey(derRepresentation: key.pkcs8DERRepresentation).rawRepresentation == key.key.rawRepresentation)
    }

    @Test func roundTripsSEC1PrivateKeys() throws {
        let pem = key.sec1PEMRepresentation
        #expect(pem.hasPrefix("-----BEGIN EC PRIVATE KEY-----"))
        #expect(try DeviceSigningKey(pemRepresentation: pem).key.rawRepresentation == key.key.rawRepresentation)
        #expect(try DeviceSigningKey(derRepresentation: key.sec1DERRepresentation).publicKey == key.publicKey)
    }

    @Test func readsSwiftCryptoPrivateKeyEncodings() throws {
        #expect(try DeviceSigningKey(derRepresentation: key.key.derRepresentation).publicKey == key.publicKey)
        #expect(try DeviceSigningKey(pemRepresentation: key.key.pemRepresentation).publicKey == key.publicKey)
    }

    @Test func rejectsASEC1KeyWhoseStoredPublicKeyIsAnotherKeys() throws {
        let other = DeviceSigningKey()
        let mixed = ECPrivateKey(
            privateKey: ArraySlice(key.key.rawRepresentation),
            curve: CMSObjectIdentifier.p256,
            publicKey: ASN1BitString(bytes: ArraySlice(other.key.publicKey.x963Representation))
        )
        #expect(throws: KeyError.publicKeyMismatch) { try DeviceSigningKey(derRepresentation: DEREncoding.encode(mixed)) }
    }

    @Test func rejectsP384PrivateKeys() throws {
        let p384 = P384.Signing.PrivateKey()
        #expect(throws: KeyError.unsupportedCurve(CMSObjectIdentifier.p384)) {
            try DeviceSigningKey(derRepresentation: p384.derRepresentation)
        }
        #expect(throws: KeyError.unsupportedCurve(CMSObjectIdentifier.p384)) {
            try DeviceSigningKey(pemRepresentation: p384.pemRepresentation)
        }
    }

    @Test func rejectsAnOutOfRangeScalar() throws {
        let zero = ECPrivateKey(privateKey: ArraySlice(repeating: 0, count: 32), curve: CMSObjectIdentifier.p256, publicKey: nil)
        #expect(throws: KeyError.invalidPrivateKey) { try DeviceSigningKey(derRepresentation: DEREncoding.encode(zero)) }
        let order = ECPrivateKey(privateKey: P256SignatureCheck.groupOrder[...], curve: CMSObjectIdentifier.p256, publicKey: nil)
        #expect(throws: KeyError.invalidPrivateKey) { try DeviceSigningKey(derRepresentation: DEREncoding.encode(order)) }
    }

    @Test func rejectsWrongPEMLabels() {
        #expect(throws: KeyError.unexpectedPEMLabel(.privateKey)) { try DeviceSigningKey(pemRepresentation: key.publicKey.pemRepresentation) }
        #expect(throws: KeyError.unexpectedPEMLabel(.publicKey)) { try DevicePublicKey(pemRepresentation: key.pkcs8PEMRepresentation) }
        #expect(throws: KeyError.invalidPEM) { try DevicePublicKey(pemRepresentation: "hello") }
        #expect(throws: KeyError.unexpectedPEMLabel(.publicKeyOrCertificate)) { try TrustedSigner(pemRepresentation: key.sec1PEMRepresentation) }
    }

    @Test func roundTripsSubjectPublicKeyInfo() throws {
        let publicKey = key.publicKey
        #expect(publicKey.derRepresentation == Array(key.key.publicKey.derRepresentation))
        #expect(try DevicePublicKey(derRepresentation: publicKey.derRepresentation) == publicKey)
        #expect(try DevicePublicKey(pemRepresentation: publicKey.pemRepresentation) == publicKey)
        #expect(try DevicePublicKey(x963Representation: key.key.publicKey.compressedRepresentation) == publicKey)
    }

    @Test func computesTheSubjectKeyIdentifierAsSHA1OfThePoint() {
        let expected = Array(Insecure.SHA1.hash(data: key.key.publicKey.x963Representation))
        #expect(key.publicKey.subjectKeyIdentifier == expected)
        #expect(expected.count == 20)
    }

    @Test func rejectsP384PublicKeysAndCertificates() throws {
        let p384 = P384.Signing.PrivateKey()
        #expect(throws: KeyError.unsupportedCurve(CMSObjectIdentifier.p384)) {
            try DevicePublicKey(derRepresentation: p384.publicKey.derRepresentation)
        }
        #expect(throws: KeyError.unsupportedCurve(CMSObjectIdentifier.p384)) {
            try TrustedSigner(pemRepresentation: p384.publicKey.pemRepresentation)
        }
        let name = try DistinguishedName { CommonName("P-384 Meter") }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(p384.publicKey),
            notValidBefore: Date(), notValidAfter: Date(timeIntervalSinceNow: 3600),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA384,
            extensions: Certificate.Extensions(), issuerPrivateKey: .init(p384)
        )
        #expect(throws: KeyError.unsupportedCurve(CMSObjectIdentifier.p384)) { try DeviceCertificate(certificate) }
        let pem = try certificate.serializeAsPEM().pemString
        #expect(throws: KeyError.unsupportedCurve(CMSObjectIdentifier.p384)) { try TrustedSigner(pemRepresentation: pem) }
    }

    @Test func rejectsNonECPublicKeys() throws {
        let ed25519 = Curve25519.Signing.PrivateKey().publicKey
        let spki = SubjectPublicKeyInfo(
            algorithm: AlgorithmIdentifier(algorithm: [1, 3, 101, 112]),
            subjectPublicKey: ASN1BitString(bytes: ArraySlice(ed25519.rawRepresentation))
        )
        #expect(throws: KeyError.unsupportedKeyAlgorithm([1, 3, 101, 112])) { try DevicePublicKey(derRepresentation: DEREncoding.encode(spki)) }
    }

    @Test func rejectsPointsNotOnTheCurve() throws {
        var point = Array(key.key.publicKey.x963Representation)
        point[64] ^= 0x01
        #expect(throws: KeyError.invalidPublicKey) { try DevicePublicKey(x963Representation: point) }
        let spki = SubjectPublicKeyInfo(p256Point: point)
        #expect(throws: KeyError.invalidPublicKey) { try DevicePublicKey(derRepresentation: DEREncoding.encode(spki)) }
    }

    @Test func reportsMalformedKeyDERWithItsFault() {
        let der = key.publicKey.derRepresentation
        #expect(throws: KeyError.malformedDER(DERFault(kind: .truncated, structure: .encoding, offset: 0))) {
            try DevicePublicKey(derRepresentation: der.dropLast())
        }
        #expect(throws: KeyError.malformedDER(DERFault(kind: .trailingBytes, structure: .encoding, offset: der.count))) {
            try DevicePublicKey(derRepresentation: der + [0])
        }
    }

    // MARK: - JWK

    @Test func roundTripsJWK() throws {
        let jwk = key.publicKey.jwkRepresentation
        #expect(jwk.hasPrefix(#"{"crv":"P-256","kty":"EC","x":""#))
        #expect(try DevicePublicKey(jwk: jwk) == key.publicKey)
        #expect(try TrustedSigner(jwk: jwk).publicKey == key.publicKey)
    }

    @Test func rejectsUnsuitableJWKs() throws {
        let x = Base64URL.encode(Array(key.key.publicKey.rawRepresentation.prefix(32)))
        let y = Base64URL.encode(Array(key.key.publicKey.rawRepresentation.suffix(32)))
        #expect(throws: KeyError.invalidJWK(.notJSON)) { try DevicePublicKey(jwk: "not json") }
        #expect(throws: KeyError.invalidJWK(.unsupportedKeyType)) { try DevicePublicKey(jwk: #"{"kty":"RSA","n":"AQAB","e":"AQAB"}"#) }
        #expect(throws: KeyError.unsupportedCurve(CMSObjectIdentifier.p384)) {
            try DevicePublicKey(jwk: #"{"kty":"EC","crv":"P-384","x":"\#(x)","y":"\#(y)"}"#)
        }
        #expect(throws: KeyError.invalidJWK(.unsupportedCurveName)) {
            try DevicePublicKey(jwk: #"{"kty":"EC","crv":"secp256k1","x":"\#(x)","y":"\#(y)"}"#)
        }
        #expect(throws: KeyError.invalidJWK(.invalidCoordinate)) {
            try DevicePublicKey(jwk: #"{"kty":"EC","crv":"P-256","x":"\#(x)=","y":"\#(y)"}"#)
        }
        #expect(throws: KeyError.invalidJWK(.invalidCoordinate)) {
            try DevicePublicKey(jwk: #"{"kty":"EC","crv":"P-256","x":"AAAA","y":"\#(y)"}"#)
        }
        #expect(throws: KeyError.invalidJWK(.containsPrivateKey)) {
            try DevicePublicKey(jwk: #"{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(y)","d":"\#(x)"}"#)
        }
        #expect(throws: KeyError.invalidPublicKey) {
            try DevicePublicKey(jwk: #"{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(x)"}"#)
        }
    }

    // MARK: - Certificates

    @Test func mintsASelfSignedCertificate() throws {
        let certificate = try DeviceCertificate.selfSigned(subject: "CN=Glucose Meter Co, O=Example Devices, C=US", key: key, serialNumber: [0x42])
        #expect(certificate.publicKey == key.publicKey)
        #expect(certificate.subjectKeyIdentifierExtension == key.publicKey.subjectKeyIdentifier)
        #expect(certificate.certificate.subject == certificate.certificate.issuer)
        #expect(certificate.certificate.subject.description == "CN=Glucose Meter Co,O=Example Devices,C=US")
        #expect(try certificate.certificate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: nil))
        #expect(try certificate.certificate.extensions.keyUsage?.digitalSignature == true)
        #expect(certificate.certificate.serialNumber == Certificate.SerialNumber(bytes: [0x42]))
        #expect(certificate.certificate.publicKey.isValidSignature(certificate.certificate.signature, for: certificate.certificate))
        let reparsed = try DeviceCertificate(pemRepresentation: certificate.pemRepresentation)
        #expect(reparsed == certificate)
        #expect(try TrustedSigner(derRepresentation: certificate.derRepresentation).certificate == certificate)
        #expect(try TrustedSigner(derRepresentation: key.publicKey.derRepresentation).certificate == nil)
    }

    @Test func mintsLeafCertificatesOnRequest() throws {
        let certificate = try DeviceCertificate.selfSigned(subject: "/O=Example/CN=Scale", key: key, isCertificateAuthority: false)
        #expect(try certificate.certificate.extensions.basicConstraints == .notCertificateAuthority)
        #expect(certificate.certificate.subject.description == "CN=Scale,O=Example")
    }

    @Test func rejectsUnparseableSubjects() {
        #expect(throws: KeyError.invalidSubjectName(.empty)) { try DeviceCertificate.selfSigned(subject: "", key: key) }
        #expect(throws: KeyError.invalidSubjectName(.missingEquals(offset: 0))) { try DeviceCertificate.selfSigned(subject: "Glucose", key: key) }
        #expect(throws: KeyError.invalidSubjectName(.unknownAttributeType(offset: 14))) {
            try DeviceCertificate.selfSigned(subject: "CN=Glucose Co, XYZ=1", key: key)
        }
        #expect(throws: KeyError.invalidSubjectName(.emptyValue(offset: 0))) { try DeviceCertificate.selfSigned(subject: "CN=", key: key) }
    }

    @Test func reportsUnparseableCertificates() throws {
        let der = try DeviceCertificate.selfSigned(subject: "CN=Meter", key: key).derRepresentation
        #expect(throws: KeyError.malformedDER(DERFault(kind: .truncated, structure: .certificate, offset: 0))) {
            try DeviceCertificate(derRepresentation: der.dropLast())
        }
        #expect(throws: KeyError.invalidCertificate) { try DeviceCertificate(derRepresentation: key.publicKey.derRepresentation) }
    }
}
