import Crypto
import Foundation
import SwiftASN1
import X509

/// Verifies CMS SignedData messages (RFC 5652) in strict DER against trusted
/// P-256 keys or certificates.
///
/// Verification parses `ContentInfo`/`SignedData` with swift-asn1's DER
/// parser (BER, including indefinite lengths, is rejected with a
/// ``DERFault``), finds a `SignerInfo` whose subject key identifier or issuer
/// and serial number names a trusted signer, checks the algorithms
/// (SHA-256, ecdsa-with-SHA256), then either
/// - with signed attributes: checks content-type equals `eContentType` and
///   message-digest equals SHA-256 of the content, and verifies the signature
///   over the attributes' DER with the `[0] IMPLICIT` tag replaced by
///   `SET` (0x31), RFC 5652 §5.4; or
/// - without: verifies the signature over the content itself,
///
/// using ``P256SignatureCheck``, which rejects non-DER and out-of-range
/// signature values.
public struct CMSVerifier: Sendable {
    /// Keys and certificates whose signatures are accepted.
    public var trustedSigners: [TrustedSigner]
    /// Messages larger than this are rejected before parsing.
    public var maximumMessageSize: Int
    /// Whether the allocation-free reader (``SignedDataFastPath``) is tried first; tests turn
    /// it off to check that both paths give identical outcomes.
    var usesFastPath = true

    /// Creates a verifier trusting `trustedSigners`.
    public init(trusting trustedSigners: [TrustedSigner], maximumMessageSize: Int = 1 << 20) {
        self.trustedSigners = trustedSigners
        self.maximumMessageSize = maximumMessageSize
    }

    /// Creates a verifier trusting one key or certificate.
    public init(trusting trustedSigner: TrustedSigner, maximumMessageSize: Int = 1 << 20) {
        self.init(trusting: [trustedSigner], maximumMessageSize: maximumMessageSize)
    }

    /// Verifies `message`.
    ///
    /// - Parameters:
    ///   - message: the DER message.
    ///   - detachedContent: the content of a detached signature; must be `nil` when the message carries its content.
    /// - Returns: the signer, the content and what the signature covered.
    /// - Throws: a ``SignatureVerificationError`` naming the first problem found.
    public func verify(
        _ message: CMSSignedMessage,
        detachedContent: [UInt8]? = nil
    ) throws(SignatureVerificationError) -> CMSVerificationResult {
        try verify(derEncoded: message.derRepresentation, detachedContent: detachedContent)
    }

    /// Verifies DER bytes; see ``verify(_:detachedContent:)``.
    public func verify(
        derEncoded bytes: [UInt8],
        detachedContent: [UInt8]? = nil
    ) throws(SignatureVerificationError) -> CMSVerificationResult {
        guard bytes.count <= maximumMessageSize else {
            throw .messageTooLarge(size: bytes.count, limit: maximumMessageSize)
        }
        if usesFastPath, let fast = SignedDataFastPath.read(bytes), let result = try verify(fast, detachedContent: detachedContent) {
            return result
        }
        let signedData = try Self.parse(bytes, maximumLength: maximumMessageSize).signedData
        let encapsulated = signedData.encapContentInfo

        let content: ArraySlice<UInt8>
        switch (encapsulated.eContent, detachedContent) {
        case (let attached?, nil): content = attached
        case (nil, let detached?): content = detached[...]
        case (nil, nil): throw .contentMissing
        case (.some, .some): throw .unexpectedDetachedContent
        }

        var firstFailure: SignatureVerificationError?
        for signerInfo in signedData.signerInfos {
            guard let trusted = match(signerInfo.signerIdentifier, certificates: signedData.certificates) else {
                continue
            }
            do {
                let (hasAttributes, signingTime) = try Self.verify(
                    signerInfo, content: content, eContentType: encapsulated.eContentType, key: trusted.publicKey
                )
                return CMSVerificationResult(
                    signer: CMSSignerIdentity(signerInfo.signerIdentifier),
                    trustedSigner: trusted,
                    hasSignedAttributes: hasAttributes,
                    signingTime: signingTime,
                    content: Array(content),
                    contentType: encapsulated.eContentType,
                    isDetached: encapsulated.eContent == nil
                )
            } catch {
                firstFailure = firstFailure ?? error
            }
        }
        throw firstFailure ?? .signerNotFound
    }

    /// Verifies a message read by ``SignedDataFastPath``; `nil` when no trusted key has its
    /// subject key identifier (the full path then looks further and reports the outcome).
    func verify(
        _ message: SignedDataFastPath,
        detachedContent: [UInt8]?
    ) throws(SignatureVerificationError) -> CMSVerificationResult? {
        guard let trusted = trustedSigners.first(where: { signer in
            signer.subjectKeyIdentifiers.contains { message.subjectKeyIdentifier.elementsEqual($0) }
        }) else { return nil }

        let content: ArraySlice<UInt8>
        switch (message.eContent, detachedContent) {
        case (let attached?, nil): content = attached
        case (nil, let detached?): content = detached[...]
        case (nil, nil): throw .contentMissing
        case (.some, .some): throw .unexpectedDetachedContent
        }

        let signedDigest: SHA256Digest
        if let attributes = message.signedAttributes {
            guard attributes.messageDigest.elementsEqual(SHA256.hash(data: content)) else {
                throw .digestMismatch
            }
            var hasher = SHA256()
            hasher.update(data: [0x31])  // universal, constructed, SET (RFC 5652 §5.4)
            hasher.update(data: attributes.encoding.dropFirst())
            signedDigest = hasher.finalize()
        } else {
            signedDigest = SHA256.hash(data: content)
        }
        try P256SignatureCheck.verify(derSignature: Array(message.signature), digest: signedDigest, publicKey: trusted.publicKey.key)
        return CMSVerificationResult(
            signer: .subjectKeyIdentifier(Array(message.subjectKeyIdentifier)),
            trustedSigner: trusted,
            hasSignedAttributes: message.signedAttributes != nil,
            signingTime: message.signedAttributes?.signingTime,
            content: Array(content),
            contentType: CMSObjectIdentifier.data,
            isDetached: message.eContent == nil
        )
    }

    /// Strictly parses a DER `ContentInfo` holding `SignedData`.
    static func parse(_ bytes: [UInt8], maximumLength: Int) throws(SignatureVerificationError) -> ContentInfo {
        do {
            let root = try DERDecoding.parse(bytes, maximumLength: maximumLength)
            return try ContentInfo(derEncoded: root)
        } catch let error as SignatureVerificationError {
            throw error
        } catch let error as DERFaultError {
            throw .malformedDER(error.fault)
        } catch {
            throw .malformedDER(DERFault(kind: DERDecoding.kind(for: error), structure: .contentInfo))
        }
    }

    /// The trusted signer a SignerIdentifier names, if any.
    func match(_ identifier: SignerIdentifier, certificates: [ASN1Any]?) -> TrustedSigner? {
        switch identifier {
        case .subjectKeyIdentifier(let keyIdentifier):
            return trustedSigners.first { signer in
                signer.subjectKeyIdentifiers.contains { keyIdentifier.elementsEqual($0) }
            }
        case .issuerAndSerialNumber(let issuerAndSerialNumber):
            if let signer = trustedSigners.first(where: { signer in
                signer.certificate.map { issuerAndSerialNumber.identifies($0.certificate) } ?? false
            }) {
                return signer
            }
            // A bare trusted key matches when the message embeds a certificate
            // with this issuer and serial number that certifies that very key.
            for value in certificates ?? [] {
                guard let certificate = try? Certificate(asn1Any: value),
                    issuerAndSerialNumber.identifies(certificate),
                    let key = try? DevicePublicKey(certificatePublicKey: certificate.publicKey)
                else { continue }
                if let signer = trustedSigners.first(where: { $0.publicKey == key }) {
                    return signer
                }
            }
            return nil
        }
    }

    /// Checks one SignerInfo against `key`; returns whether it had signed attributes and its signing time.
    static func verify(
        _ signerInfo: SignerInfo,
        content: ArraySlice<UInt8>,
        eContentType: ASN1ObjectIdentifier,
        key: DevicePublicKey
    ) throws(SignatureVerificationError) -> (Bool, Date?) {
        guard signerInfo.digestAlgorithm.isSHA256 else {
            throw .unsupportedDigestAlgorithm(signerInfo.digestAlgorithm.algorithm)
        }
        guard signerInfo.signatureAlgorithm.isECDSAWithSHA256 else {
            throw .unsupportedSignatureAlgorithm(signerInfo.signatureAlgorithm.algorithm)
        }

        let signedDigest: SHA256Digest
        var signingTime: Date?
        if let attributes = signerInfo.signedAttributes, let encoding = signerInfo.signedAttributesEncoding {
            let checked = try SignedAttributes(validating: attributes)
            guard checked.contentType == eContentType else {
                throw .contentTypeMismatch(attribute: checked.contentType, eContentType: eContentType)
            }
            guard checked.messageDigest.elementsEqual(SHA256.hash(data: content)) else {
                throw .digestMismatch
            }
            signingTime = checked.signingTime
            // RFC 5652 §5.4: the DER of the SET OF, i.e. the received [0] bytes with tag 0x31.
            // Strict parsing (minimal lengths, sorted SET OF) makes these bytes the DER re-encoding.
            var hasher = SHA256()
            hasher.update(data: [0x31])  // universal, constructed, SET
            hasher.update(data: encoding.dropFirst())
            signedDigest = hasher.finalize()
        } else {
            guard eContentType == CMSObjectIdentifier.data else {
                throw .missingSignedAttribute(.contentType)
            }
            signedDigest = SHA256.hash(data: content)
        }
        try P256SignatureCheck.verify(derSignature: Array(signerInfo.signature), digest: signedDigest, publicKey: key.key)
        return (signerInfo.signedAttributes != nil, signingTime)
    }
}
