import SwiftASN1

/// Why a CMS signature did not verify.
///
/// Every way a message can fail — bad base64, malformed DER (including BER
/// indefinite lengths), unsupported algorithms or keys, a signer that is not
/// trusted, a content or attribute that does not match, a bad signature — has
/// its own case, so callers can react precisely and tests can assert exactly.
public enum SignatureVerificationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The message is larger than the verifier accepts.
    case messageTooLarge(size: Int, limit: Int)
    /// The text is not valid base64.
    case invalidBase64
    /// The text is not a PEM document labelled `CMS` or `PKCS7`.
    case invalidPEM
    /// The bytes are not strict DER, or not shaped like the structure named in the fault.
    case malformedDER(DERFault)
    /// The `ContentInfo` holds something other than `id-signedData`.
    case unsupportedContentType(ASN1ObjectIdentifier)
    /// A version number is not the one RFC 5652 requires for the structure's contents.
    case unsupportedVersion(DERStructure, Int)
    /// The signer's digest algorithm is not SHA-256 (with absent or NULL parameters).
    case unsupportedDigestAlgorithm(ASN1ObjectIdentifier)
    /// The signer's signature algorithm is not ecdsa-with-SHA256 (with absent parameters).
    case unsupportedSignatureAlgorithm(ASN1ObjectIdentifier)
    /// No `SignerInfo` is identified by any trusted key or certificate.
    case signerNotFound
    /// The signature is detached and no content was supplied.
    case contentMissing
    /// Content was supplied separately, but the message already carries its own.
    case unexpectedDetachedContent
    /// A signed attribute that RFC 5652 requires is missing.
    case missingSignedAttribute(SignedAttributeKind)
    /// A signed attribute is repeated, has other than one value, or has a value of the wrong type.
    case invalidSignedAttribute(SignedAttributeKind)
    /// The content-type signed attribute differs from `eContentType`.
    case contentTypeMismatch(attribute: ASN1ObjectIdentifier, eContentType: ASN1ObjectIdentifier)
    /// The message-digest signed attribute is not the SHA-256 digest of the content.
    case digestMismatch
    /// The signature value is not a valid DER `ECDSA-Sig-Value` for P-256.
    case malformedSignature(ECDSASignatureFault)
    /// The signature does not verify under the signer's public key.
    case signatureInvalid

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case .messageTooLarge(let size, let limit):
            "CMS message of \(size) bytes exceeds the limit of \(limit) bytes"
        case .invalidBase64:
            "signature is not valid base64"
        case .invalidPEM:
            "text is not a PEM document labelled CMS or PKCS7"
        case .malformedDER(let fault):
            "malformed DER: \(fault)"
        case .unsupportedContentType(let oid):
            "ContentInfo content type \(oid) is not id-signedData"
        case .unsupportedVersion(let structure, let version):
            "\(structure) version \(version) does not match its contents (RFC 5652)"
        case .unsupportedDigestAlgorithm(let oid):
            "unsupported digest algorithm \(oid) (only SHA-256 is accepted)"
        case .unsupportedSignatureAlgorithm(let oid):
            "unsupported signature algorithm \(oid) (only ecdsa-with-SHA256 is accepted)"
        case .signerNotFound:
            "no signer in the message matches a trusted key or certificate"
        case .contentMissing:
            "the signature is detached and no content was supplied"
        case .unexpectedDetachedContent:
            "content was supplied separately but the message already contains content"
        case .missingSignedAttribute(let kind):
            "required signed attribute \(kind) is missing"
        case .invalidSignedAttribute(let kind):
            "signed attribute \(kind) is repeated or has an invalid value"
        case .contentTypeMismatch(let attribute, let eContentType):
            "content-type attribute \(attribute) differs from eContentType \(eContentType)"
        case .digestMismatch:
            "message-digest attribute does not match the SHA-256 digest of the content"
        case .malformedSignature(let fault):
            "malformed ECDSA signature: \(fault)"
        case .signatureInvalid:
            "ECDSA signature does not verify under the signer's public key"
        }
    }
}
