/// What can be learnt from a sample's signature without the signer's key.
public struct SampleSignatureStructure: Sendable, Hashable {
    /// How each `SignerInfo` names its signer, in message order.
    public let signers: [CMSSignerIdentity]
    /// Whether the signed content is left out of the message (a detached signature).
    public let isDetached: Bool
    /// How many certificates the message carries.
    public let certificateCount: Int
}

extension SignedSample {
    /// Checks that a stored signature is well formed, without verifying it.
    ///
    /// A store does not know the device maker's key, so when a sample is saved it can only
    /// check the shape: standard base64 of a strict-DER CMS `ContentInfo` holding `SignedData`
    /// with at least one signer, whose attached content (if any) is a valid
    /// ``SignedSampleContent``. Verification against a key is ``verify(_:signature:verifier:)``.
    ///
    /// - Throws: ``SampleSignatureFailure/signature(_:)`` for bad base64 or malformed CMS
    ///   (``SignatureVerificationError/signerNotFound`` when it has no signer at all),
    ///   ``SampleSignatureFailure/signedContent(_:)`` when the attached content is not a sample.
    public static func structure(
        of signature: String,
        maximumMessageSize: Int = 1 << 20
    ) throws(SampleSignatureFailure) -> SampleSignatureStructure {
        let message: CMSSignedMessage
        do {
            message = try CMSSignedMessage(base64Encoded: signature)
        } catch {
            throw .signature(error)
        }
        let bytes = message.derRepresentation
        guard bytes.count <= maximumMessageSize else {
            throw .signature(.messageTooLarge(size: bytes.count, limit: maximumMessageSize))
        }
        let signedData: SignedData
        do {
            signedData = try CMSVerifier.parse(bytes, maximumLength: maximumMessageSize).signedData
        } catch {
            throw .signature(error)
        }
        guard !signedData.signerInfos.isEmpty else { throw .signature(.signerNotFound) }
        if let content = signedData.encapContentInfo.eContent {
            do {
                _ = try SignedSampleContent(derRepresentation: content)
            } catch {
                throw .signedContent(error)
            }
        }
        return SampleSignatureStructure(
            signers: signedData.signerInfos.map { CMSSignerIdentity($0.signerIdentifier) },
            isDetached: signedData.encapContentInfo.eContent == nil,
            certificateCount: signedData.certificates?.count ?? 0
        )
    }
}
