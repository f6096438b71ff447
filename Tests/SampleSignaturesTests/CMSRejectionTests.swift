import Crypto
import Foundation
import SwiftASN1
import Testing
@testable import SampleSignatures

/// Every malformed, unsupported or tampered message gets its own typed error.
@Suite("CMS rejections")
struct CMSRejectionTests {
    let key = DeviceSigningKey()
    let content: [UInt8] = Array("heart rate 61 /min".utf8)
    var verifier: CMSVerifier { CMSVerifier(trusting: TrustedSigner(publicKey: key.publicKey)) }

    func signed(_ options: CMSSigningOptions = .init(signingTime: Date(timeIntervalSince1970: 1_773_477_000))) throws -> CMSSignedMessage {
        try CMSSigner(key: key).sign(content, options: options)
    }

    func fault(_ bytes: [UInt8]) -> DERFault? {
        do {
            _ = try verifier.verify(derEncoded: bytes)
            return nil
        } catch {
            if case .malformedDER(let fault) = error { return fault }
            return nil
        }
    }

    /// Length of the outermost header (tag + length octets).
    func headerLength(_ der: [UInt8]) -> Int {
        der[1] < 0x80 ? 2 : 2 + Int(der[1] & 0x7F)
    }

    // MARK: - Malformed DER

    @Test func rejectsTruncatedDER() throws {
        let der = try signed().derRepresentation
        for cut in [1, 10, der.count / 2] {
            #expect(fault(Array(der.dropLast(cut))) == DERFault(kind: .truncated, structure: .encoding, offset: 0))
        }
        #expect(fault([]) == DERFault(kind: .truncated, structure: .encoding, offset: 0))
        #expect(fault([0x30]) == DERFault(kind: .truncated, structure: .encoding, offset: 0))
    }

    @Test func rejectsTrailingBytes() throws {
        let der = try signed().derRepresentation
        #expect(fault(der + [0x00]) == DERFault(kind: .trailingBytes, structure: .encoding, offset: der.count))
        #expect(fault(der + der) == DERFault(kind: .trailingBytes, structure: .encoding, offset: der.count))
    }

    @Test func rejectsIndefiniteLength() throws {
        let der = try signed().derRepresentation
        let ber = [0x30, 0x80] + der[headerLength(der)...] + [0x00, 0x00]
        #expect(fault(ber) == DERFault(kind: .indefiniteLength, structure: .encoding, offset: 0))
    }

    @Test func rejectsAbsurdLengths() throws {
        let der = try signed().derRepresentation
        let body = Array(der[headerLength(der)...])
        #expect(fault([0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF] + body) == DERFault(kind: .lengthTooLarge, structure: .encoding, offset: 0))
        #expect(fault([0x30, 0x89, 1, 2, 3, 4, 5, 6, 7, 8, 9] + body) == DERFault(kind: .lengthTooLarge, structure: .encoding, offset: 0))
        #expect(fault([0x30, 0xFF] + body) == DERFault(kind: .lengthTooLarge, structure: .encoding, offset: 0))
    }

    @Test func rejectsNonMinimalLength() throws {
        let der = try signed().derRepresentation
        let body = Array(der[headerLength(der)...])
        let length = body.count
        let padded = [0x30, 0x83, 0x00, UInt8(length >> 8), UInt8(length & 0xFF)] + body
        #expect(fault(padded) == DERFault(kind: .nonMinimalLength, structure: .encoding, offset: 0))
        #expect(fault([0x02, 0x81, 0x01, 0x05]) == DERFault(kind: .nonMinimalLength, structure: .encoding, offset: 0))
    }

    @Test func rejectsExcessiveNesting() {
        // 60 nested SEQUENCEs, each header 2 bytes; the 51st (offset 100) is one too deep.
        var nested: [UInt8] = []
        for depth in 0..<60 {
            nested.append(contentsOf: [0x30, UInt8((60 - depth - 1) * 2)])
        }
        #expect(fault(nested) == DERFault(kind: .nestingTooDeep, structure: .encoding, offset: 100))
    }

    @Test func rejectsWrongOuterTag() throws {
        var der = try signed().derRepresentation
        der[0] = 0x31
        #expect(fault(der) == DERFault(kind: .unexpectedTag, structure: .contentInfo, offset: 0))
    }

    @Test func rejectsWrongTagDeepInside() throws {
        let message = try signed()
        var der = message.derRepresentation
        // The SignerInfo ends with `04 len ECDSA-Sig-Value`; turn the OCTET STRING into a BIT STRING.
        let signature = try CMSSurgery.parse(message).signedData.signerInfos[0].signature
        let tagOffset = der.count - signature.count - 2
        #expect(der[tagOffset] == 0x04)
        der[tagOffset] = 0x03
        let found = try #require(fault(der))
        #expect(found.kind == .unexpectedTag)
        #expect(found.structure == .signerInfo)
    }

    @Test func rejectsConstructedOctetStringContent() throws {
        // eContent as a BER constructed OCTET STRING: [0] { 24 len { 04 n data } }.
        let inner: [UInt8] = [0x04, UInt8(content.count)] + content
        let constructed: [UInt8] = [0x24, UInt8(inner.count)] + inner
        var coder = DER.Serializer()
        try coder.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(CMSObjectIdentifier.data)
            coder.serializeRawBytes([0xA0, UInt8(constructed.count)] + constructed)
        }
        let node = try DER.parse(coder.serializedBytes)
        let error = #expect(throws: DERFaultError.self) { try EncapsulatedContentInfo(derEncoded: node) }
        #expect(error?.fault.structure == .encapsulatedContentInfo)
        #expect(error?.fault.offset == 0)
    }

    @Test func rejectsContentInfoThatIsNotSignedData() throws {
        var coder = DER.Serializer()
        try coder.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(CMSObjectIdentifier.data)
            try coder.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { coder in
                try coder.serialize(ASN1OctetString(contentBytes: [1, 2, 3]))
            }
        }
        #expect(throws: SignatureVerificationError.unsupportedContentType(CMSObjectIdentifier.data)) {
            try verifier.verify(derEncoded: coder.serializedBytes)
        }
    }

    @Test func rejectsOversizedMessagesBeforeParsing() throws {
        let der = try signed().derRepresentation
        let small = CMSVerifier(trusting: TrustedSigner(publicKey: key.publicKey), maximumMessageSize: 64)
        #expect(throws: SignatureVerificationError.messageTooLarge(size: der.count, limit: 64)) {
            try small.verify(derEncoded: der)
        }
    }

    // MARK: - Versions

    @Test func rejectsSignerInfoVersionThatContradictsTheIdentifier() throws {
        let message = try CMSSurgery.changingSignerInfo(try signed()) { $0.version = 1 }
        #expect(throws: SignatureVerificationError.unsupportedVersion(.signerInfo, 1)) { try verifier.verify(message) }
    }

    @Test func rejectsSignedDataVersionThatContradictsItsContents() throws {
        var contentInfo = try CMSSurgery.parse(try signed())
        contentInfo.signedData.version = 1
        let message = try CMSSurgery.encode(contentInfo)
        #expect(throws: SignatureVerificationError.unsupportedVersion(.signedData, 1)) { try verifier.verify(message) }
    }

    // MARK: - Algorithms

    @Test func rejectsUnknownDigestAlgorithm() throws {
        let sha512: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 3]
        let message = try CMSSurgery.changingSignerInfo(try signed()) { $0.digestAlgorithm = AlgorithmIdentifier(algorithm: sha512) }
        #expect(throws: SignatureVerificationError.unsupportedDigestAlgorithm(sha512)) { try verifier.verify(message) }
    }

    @Test func rejectsSHA256WithUnexpectedParameters() throws {
        let message = try CMSSurgery.changingSignerInfo(try signed()) {
            $0.digestAlgorithm = AlgorithmIdentifier(algorithm: CMSObjectIdentifier.sha256, parameters: try ASN1Any(erasing: 5))
        }
        #expect(throws: SignatureVerificationError.unsupportedDigestAlgorithm(CMSObjectIdentifier.sha256)) { try verifier.verify(message) }
    }

    @Test func acceptsSHA256WithNullParameters() throws {
        let message = try CMSSurgery.changingSignerInfo(try signed()) {
            $0.digestAlgorithm = AlgorithmIdentifier(algorithm: CMSObjectIdentifier.sha256, parameters: AlgorithmIdentifier.nullParameters)
        }
        #expect(try verifier.verify(message).content == content)
    }

    @Test func rejectsUnknownSignatureAlgorithm() throws {
        let ecdsaWithSHA384: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 3]
        let message = try CMSSurgery.changingSignerInfo(try signed()) { $0.signatureAlgorithm = AlgorithmIdentifier(algorithm: ecdsaWithSHA384) }
        #expect(throws: SignatureVerificationError.unsupportedSignatureAlgorithm(ecdsaWithSHA384)) { try verifier.verify(message) }
    }

    // MARK: - Signature values

    static let groupOrder = P256SignatureCheck.groupOrder

    @Test(
        "rejects r or s outside [1, n-1]",
        arguments: [
            ([UInt8]([0]), [UInt8]([1]), ECDSASignatureFault.rOutOfRange),
            ([1], [0], .sOutOfRange),
            (groupOrder, [1], .rOutOfRange),
            ([1], groupOrder, .sOutOfRange),
            ([1], [0x01] + [UInt8](repeating: 0, count: 32), .sOutOfRange),
            ([UInt8](repeating: 0xFF, count: 32), [1], .rOutOfRange),
        ]
    )
    func rejectsScalarsOutOfRange(r: [UInt8], s: [UInt8], expected: ECDSASignatureFault) throws {
        let message = try CMSSurgery.withSignature(try signed(), r: r, s: s)
        #expect(throws: SignatureVerificationError.malformedSignature(expected)) { try verifier.verify(message) }
    }

    @Test func rejectsNonMinimalIntegersInTheSignature() throws {
        let message = try signed()
        let original = try CMSSurgery.parse(message).signedData.signerInfos[0].signature
        let value = try ECDSASignatureValue(derEncoded: DER.parse(Array(original)))
        // Re-encode r with a superfluous leading zero octet.
        var r: [UInt8] = [0x00] + value.r
        if value.r.first! >= 0x80 { r = [0x00] + r }
        let rTLV: [UInt8] = [0x02, UInt8(r.count)] + r
        let sBody: [UInt8] = value.s.first! >= 0x80 ? [0x00] + value.s : Array(value.s)
        let sTLV: [UInt8] = [0x02, UInt8(sBody.count)] + sBody
        let malleable: [UInt8] = [0x30, UInt8(rTLV.count + sTLV.count)] + rTLV + sTLV
        let tampered = try CMSSurgery.changingSignerInfo(message) { $0.signature = malleable[...] }
        let error = #expect(throws: SignatureVerificationError.self) { try verifier.verify(tampered) }
        guard case .malformedSignature(.notDER(let fault)) = error else {
            Issue.record("expected a non-DER signature error, got \(String(describing: error))")
            return
        }
        #expect(fault.kind == .invalidInteger)
        #expect(fault.structure == .ecdsaSignature)
    }

    @Test func rejectsARawSignatureInsteadOfDER() throws {
        let message = try CMSSurgery.changingSignerInfo(try signed()) { info in
            info.signature = ArraySlice(try P256.Signing.ECDSASignature(derRepresentation: Array(info.signature)).rawRepresentation)
        }
        let error = #expect(throws: SignatureVerificationError.self) { try verifier.verify(message) }
        #expect(error.map { if case .malformedSignature(.notDER) = $0 { true } else { false } } == true)
    }

    // MARK: - Tampering

    @Test func detectsTamperedContentThroughTheMessageDigest() throws {
        var contentInfo = try CMSSurgery.parse(try signed())
        contentInfo.signedData.encapContentInfo.eContent = Array("heart rate 16 /min".utf8)[...]
        #expect(throws: SignatureVerificationError.digestMismatch) { try verifier.verify(CMSSurgery.encode(contentInfo)) }
    }

    @Test func detectsTamperedContentWithoutSignedAttributes() throws {
        var contentInfo = try CMSSurgery.parse(try signed(.init(includesSignedAttributes: false)))
        contentInfo.signedData.encapContentInfo.eContent = Array("heart rate 16 /min".utf8)[...]
        #expect(throws: SignatureVerificationError.signatureInvalid) { try verifier.verify(CMSSurgery.encode(contentInfo)) }
    }

    @Test func detectsTamperedDetachedContent() throws {
        let message = try signed(.init(detached: true))
        #expect(throws: SignatureVerificationError.digestMismatch) {
            try verifier.verify(message, detachedContent: Array("heart rate 16 /min".utf8))
        }
        #expect(throws: SignatureVerificationError.unexpectedDetachedContent) {
            try verifier.verify(try signed(), detachedContent: content)
        }
    }

    @Test func detectsATamperedSignedAttribute() throws {
        let message = try CMSSurgery.changingSignerInfo(try signed()) { info in
            let index = try #require(info.signedAttributes?.firstIndex { $0.attrType == CMSObjectIdentifier.signingTimeAttribute })
            info.signedAttributes?[index].attrValues = [
                try ASN1Any(erasing: UTCTime(year: 2020, month: 1, day: 1, hours: 0, minutes: 0, seconds: 0))
            ]
        }
        #expect(throws: SignatureVerificationError.signatureInvalid) { try verifier.verify(message) }
    }

    @Test func rejectsAMessageDigestAttributeForOtherContent() throws {
        let message = try CMSSurgery.resigningAttributes(try signed(), key: key) { attributes in
            let index = try require(attributes.firstIndex { $0.attrType == CMSObjectIdentifier.messageDigestAttribute })
            attributes[index].attrValues = [try ASN1Any(erasing: ASN1OctetString(contentBytes: ArraySlice(SHA256.hash(data: [1, 2, 3]))))]
        }
        #expect(throws: SignatureVerificationError.digestMismatch) { try verifier.verify(message) }
    }

    @Test func rejectsAContentTypeAttributeThatDiffersFromEContentType() throws {
        let other: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 5]
        let message = try CMSSurgery.resigningAttributes(try signed(), key: key) { attributes in
            let index = try require(attributes.firstIndex { $0.attrType == CMSObjectIdentifier.contentTypeAttribute })
            attributes[index].attrValues = [try ASN1Any(erasing: other)]
        }
        #expect(throws: SignatureVerificationError.contentTypeMismatch(attribute: other, eContentType: CMSObjectIdentifier.data)) {
            try verifier.verify(message)
        }
    }

    @Test func rejectsMissingRequiredAttributes() throws {
        for kind in [SignedAttributeKind.contentType, .messageDigest] {
            let message = try CMSSurgery.resigningAttributes(try signed(), key: key) { attributes in
                attributes.removeAll { $0.attrType == kind.objectIdentifier }
            }
            #expect(throws: SignatureVerificationError.missingSignedAttribute(kind)) { try verifier.verify(message) }
        }
    }

    @Test func rejectsRepeatedOrMalformedAttributes() throws {
        let twoDigests = try CMSSurgery.resigningAttributes(try signed(), key: key) { attributes in
            let index = try require(attributes.firstIndex { $0.attrType == CMSObjectIdentifier.messageDigestAttribute })
            attributes[index].attrValues.append(try ASN1Any(erasing: ASN1OctetString(contentBytes: [9])))
        }
        #expect(throws: SignatureVerificationError.invalidSignedAttribute(.messageDigest)) { try verifier.verify(twoDigests) }

        let repeatedType = try CMSSurgery.resigningAttributes(try signed(), key: key) { attributes in
            let original = try require(attributes.first { $0.attrType == CMSObjectIdentifier.contentTypeAttribute })
            var copy = original
            copy.attrValues = [try ASN1Any(erasing: CMSObjectIdentifier.signedData)]
            attributes.append(copy)
        }
        #expect(throws: SignatureVerificationError.invalidSignedAttribute(.contentType)) { try verifier.verify(repeatedType) }

        let badTime = try CMSSurgery.resigningAttributes(try signed(), key: key) { attributes in
            let index = try require(attributes.firstIndex { $0.attrType == CMSObjectIdentifier.signingTimeAttribute })
            attributes[index].attrValues = [try ASN1Any(erasing: ASN1UTF8String("yesterday"))]
        }
        #expect(throws: SignatureVerificationError.invalidSignedAttribute(.signingTime)) { try verifier.verify(badTime) }
    }

    @Test func requiresSignedAttributesForOtherContentTypes() throws {
        var contentInfo = try CMSSurgery.parse(try signed(.init(includesSignedAttributes: false)))
        contentInfo.signedData.encapContentInfo.eContentType = [1, 2, 3, 4]
        contentInfo.signedData.version = 3
        #expect(throws: SignatureVerificationError.missingSignedAttribute(.contentType)) {
            try verifier.verify(CMSSurgery.encode(contentInfo))
        }
    }

    // MARK: - Keys

    @Test func reportsSignerNotFoundForAnUntrustedKey() throws {
        let stranger = CMSVerifier(trusting: TrustedSigner(publicKey: DeviceSigningKey().publicKey))
        #expect(throws: SignatureVerificationError.signerNotFound) { try stranger.verify(try signed()) }
        let certificate = try DeviceCertificate.selfSigned(subject: "CN=Meter", key: key)
        let byIssuer = try CMSSigner(key: key, certificate: certificate).sign(content)
        let otherCertificate = try DeviceCertificate.selfSigned(subject: "CN=Meter", key: DeviceSigningKey())
        #expect(throws: SignatureVerificationError.signerNotFound) {
            try CMSVerifier(trusting: TrustedSigner(certificate: otherCertificate)).verify(byIssuer)
        }
    }

    @Test func rejectsASignatureByAnotherKeyUnderTheTrustedKeysIdentifier() throws {
        let impostor = DeviceSigningKey()
        let forged = try CMSSurgery.changingSignerInfo(try CMSSigner(key: impostor).sign(content)) {
            $0.signerIdentifier = .subjectKeyIdentifier(ArraySlice(key.publicKey.subjectKeyIdentifier))
        }
        #expect(throws: SignatureVerificationError.signatureInvalid) { try verifier.verify(forged) }
    }
}
