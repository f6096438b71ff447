import Crypto
import Foundation
import SwiftASN1
import Testing
import X509
@testable import SampleSignatures

@Suite("CMS sign and verify")
struct CMSSignVerifyTests {
    let key = DeviceSigningKey()
    let content: [UInt8] = Array("blood glucose 5.40 mmol/L".utf8)

    @Test func verifiesAttachedSignatureWithSignedAttributesBySubjectKeyIdentifier() throws {
        let signingTime = Date(timeIntervalSince1970: 1_773_477_000)
        let message = try CMSSigner(key: key).sign(content, options: .init(signingTime: signingTime))
        let result = try CMSVerifier(trusting: TrustedSigner(publicKey: key.publicKey)).verify(message)
        #expect(result.content == content)
        #expect(result.hasSignedAttributes)
        #expect(result.signingTime == signingTime)
        #expect(result.signer == .subjectKeyIdentifier(key.publicKey.subjectKeyIdentifier))
        #expect(result.contentType == CMSObjectIdentifier.data)
        #expect(!result.isDetached)
    }

    @Test func verifiesSignatureWithoutSignedAttributes() throws {
        let message = try CMSSigner(key: key).sign(content, options: .init(includesSignedAttributes: false))
        let result = try CMSVerifier(trusting: TrustedSigner(publicKey: key.publicKey)).verify(message)
        #expect(result.content == content)
        #expect(!result.hasSignedAttributes)
        #expect(result.signingTime == nil)
        let parsed = try CMSSurgery.parse(message)
        #expect(parsed.signedData.signerInfos[0].signedAttributes == nil)
    }

    @Test(arguments: [true, false])
    func verifiesDetachedSignatureWithContentSuppliedSeparately(signedAttributes: Bool) throws {
        let message = try CMSSigner(key: key).sign(
            content, options: .init(detached: true, includesSignedAttributes: signedAttributes)
        )
        let parsed = try CMSSurgery.parse(message)
        #expect(parsed.signedData.encapContentInfo.eContent == nil)
        let verifier = CMSVerifier(trusting: TrustedSigner(publicKey: key.publicKey))
        let result = try verifier.verify(message, detachedContent: content)
        #expect(result.isDetached)
        #expect(result.content == content)
        #expect(throws: SignatureVerificationError.contentMissing) { try verifier.verify(message) }
    }

    @Test func usesVersion3AndSubjectKeyIdentifierWithoutCertificate() throws {
        let message = try CMSSigner(key: key).sign(content)
        let signedData = try CMSSurgery.parse(message).signedData
        #expect(signedData.version == 3)
        #expect(signedData.signerInfos[0].version == 3)
        #expect(signedData.certificates == nil)
        #expect(signedData.signerInfos[0].signerIdentifier == .subjectKeyIdentifier(ArraySlice(key.publicKey.subjectKeyIdentifier)))
        #expect(key.publicKey.subjectKeyIdentifier == Array(Insecure.SHA1.hash(data: key.key.publicKey.x963Representation)))
    }

    @Test func usesVersion1AndIssuerAndSerialNumberWithCertificate() throws {
        let certificate = try DeviceCertificate.selfSigned(subject: "CN=Glucose Meter Co", key: key, serialNumber: [0x01, 0x23])
        let message = try CMSSigner(key: key, certificate: certificate).sign(content)
        let signedData = try CMSSurgery.parse(message).signedData
        #expect(signedData.version == 1)
        #expect(signedData.signerInfos[0].version == 1)
        #expect(signedData.certificates?.count == 1)

        let result = try CMSVerifier(trusting: TrustedSigner(certificate: certificate)).verify(message)
        #expect(result.signer == .issuerAndSerialNumber(issuer: certificate.certificate.subject, serialNumber: [0x01, 0x23]))
        #expect(result.trustedSigner.certificate == certificate)
    }

    @Test func matchesIssuerAndSerialNumberToABareKeyThroughTheEmbeddedCertificate() throws {
        let certificate = try DeviceCertificate.selfSigned(subject: "CN=Glucose Meter Co", key: key)
        let message = try CMSSigner(key: key, certificate: certificate).sign(content)
        let result = try CMSVerifier(trusting: TrustedSigner(publicKey: key.publicKey)).verify(message)
        #expect(result.content == content)

        let withoutCertificate = try CMSSigner(key: key, certificate: certificate, embedCertificate: false).sign(content)
        #expect(throws: SignatureVerificationError.signerNotFound) {
            try CMSVerifier(trusting: TrustedSigner(publicKey: key.publicKey)).verify(withoutCertificate)
        }
    }

    @Test func identifiesByKeyIdentifierWithACertificateWhenAsked() throws {
        let certificate = try DeviceCertificate.selfSigned(subject: "CN=Glucose Meter Co", key: key)
        let message = try CMSSigner(key: key, certificate: certificate, identification: .subjectKeyIdentifier).sign(content)
        let signedData = try CMSSurgery.parse(message).signedData
        #expect(signedData.version == 3)
        #expect(signedData.certificates?.count == 1)
        #expect(try CMSVerifier(trusting: TrustedSigner(certificate: certificate)).verify(message).content == content)
        #expect(try CMSVerifier(trusting: TrustedSigner(publicKey: key.publicKey)).verify(message).content == content)
    }

    @Test func picksTheTrustedSignerAmongSeveral() throws {
        let other = DeviceSigningKey()
        let message = try CMSSigner(key: key).sign(content)
        let verifier = CMSVerifier(trusting: [TrustedSigner(publicKey: other.publicKey), TrustedSigner(publicKey: key.publicKey)])
        #expect(try verifier.verify(message).trustedSigner.publicKey == key.publicKey)
    }

    @Test func signsOtherContentTypesOnlyWithSignedAttributes() throws {
        let type: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 99999, 1]
        let message = try CMSSigner(key: key).sign(content, options: .init(contentType: type))
        #expect(try CMSSurgery.parse(message).signedData.version == 3)
        #expect(try CMSVerifier(trusting: TrustedSigner(publicKey: key.publicKey)).verify(message).contentType == type)
        #expect(throws: SigningError.signedAttributesRequired) {
            try CMSSigner(key: key).sign(self.content, options: .init(includesSignedAttributes: false, contentType: type))
        }
    }

    @Test func refusesACertificateForAnotherKey() throws {
        let certificate = try DeviceCertificate.selfSigned(subject: "CN=Other", key: DeviceSigningKey())
        #expect(throws: SigningError.certificateKeyMismatch) { try CMSSigner(key: key, certificate: certificate) }
        #expect(throws: SigningError.certificateRequired) { try CMSSigner(key: key, identification: .issuerAndSerialNumber) }
    }

    @Test func writesSignedAttributesInDEROrder() throws {
        let message = try CMSSigner(key: key).sign(content, options: .init(signingTime: Date(timeIntervalSince1970: 1_773_477_000)))
        let info = try CMSSurgery.parse(message).signedData.signerInfos[0]
        let encoding = try #require(info.signedAttributesEncoding)
        let reencoded = try SignerInfo.signedAttributesSigningInput(try #require(info.signedAttributes))
        #expect(Array(encoding.dropFirst()) == Array(reencoded.dropFirst()))
        #expect(encoding.first == 0xA0)
        #expect(reencoded.first == 0x31)
        let types = try #require(info.signedAttributes).map(\.attrType)
        #expect(Set(types) == [CMSObjectIdentifier.contentTypeAttribute, CMSObjectIdentifier.messageDigestAttribute, CMSObjectIdentifier.signingTimeAttribute])
    }

    @Test func encodesSigningTimeAsUTCTimeBefore2050AndGeneralizedTimeAfter() throws {
        for (date, tag) in [(Date(timeIntervalSince1970: 1_773_477_000), ASN1Identifier.utcTime), (Date(timeIntervalSince1970: 2_556_144_000), .generalizedTime)] {
            let message = try CMSSigner(key: key).sign(content, options: .init(signingTime: date))
            let info = try CMSSurgery.parse(message).signedData.signerInfos[0]
            let attribute = try #require(info.signedAttributes?.first { $0.attrType == CMSObjectIdentifier.signingTimeAttribute })
            let node = try DER.parse(DEREncoding.encode(attribute.attrValues[0]))
            #expect(node.identifier == tag)
            #expect(try CMSVerifier(trusting: TrustedSigner(publicKey: key.publicKey)).verify(message).signingTime == date)
        }
    }

    @Test func roundTripsBase64AndPEM() throws {
        let message = try CMSSigner(key: key).sign(content)
        let pem = message.pemRepresentation
        #expect(pem.hasPrefix("-----BEGIN CMS-----\n"))
        #expect(try CMSSignedMessage(pemRepresentation: pem) == message)
        #expect(try CMSSignedMessage(base64Encoded: message.base64EncodedString) == message)
        let wrapped = message.base64EncodedString.enumerated().map { $0.offset % 64 == 63 ? "\($0.element)\n" : "\($0.element)" }.joined()
        #expect(try CMSSignedMessage(base64Encoded: wrapped) == message)
        #expect(throws: SignatureVerificationError.invalidBase64) { try CMSSignedMessage(base64Encoded: "not*base64") }
        #expect(throws: SignatureVerificationError.invalidPEM) { try CMSSignedMessage(pemRepresentation: key.publicKey.pemRepresentation) }
    }
}
