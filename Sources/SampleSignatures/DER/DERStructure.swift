/// Names the ASN.1 structure a parser was reading when it met a ``DERFault``.
public enum DERStructure: String, Hashable, Sendable, CustomStringConvertible {
    /// The raw TLV layer (tags and lengths), before any typed structure was read.
    case encoding
    /// CMS `ContentInfo` (RFC 5652 §3).
    case contentInfo = "ContentInfo"
    /// CMS `SignedData` (RFC 5652 §5.1).
    case signedData = "SignedData"
    /// CMS `EncapsulatedContentInfo` (RFC 5652 §5.2).
    case encapsulatedContentInfo = "EncapsulatedContentInfo"
    /// CMS `SignerInfo` (RFC 5652 §5.3).
    case signerInfo = "SignerInfo"
    /// CMS `SignerIdentifier` (RFC 5652 §5.3).
    case signerIdentifier = "SignerIdentifier"
    /// CMS `IssuerAndSerialNumber` (RFC 5652 §10.2.4).
    case issuerAndSerialNumber = "IssuerAndSerialNumber"
    /// CMS `Attribute` (RFC 5652 §5.3).
    case attribute = "Attribute"
    /// A value inside a signed attribute (content-type, message-digest, signing-time).
    case attributeValue = "AttributeValue"
    /// X.509 `AlgorithmIdentifier`.
    case algorithmIdentifier = "AlgorithmIdentifier"
    /// An X.509 certificate.
    case certificate = "Certificate"
    /// `ECDSA-Sig-Value` (RFC 5480 / RFC 3279).
    case ecdsaSignature = "ECDSA-Sig-Value"
    /// X.509 `SubjectPublicKeyInfo` (RFC 5280 / RFC 5480).
    case subjectPublicKeyInfo = "SubjectPublicKeyInfo"
    /// PKCS #8 `PrivateKeyInfo` / `OneAsymmetricKey` (RFC 5208 / RFC 5958).
    case privateKeyInfo = "PrivateKeyInfo"
    /// SEC 1 `ECPrivateKey` (RFC 5915).
    case ecPrivateKey = "ECPrivateKey"
    /// This module's ``SignedSampleContent``.
    case signedSampleContent = "SignedSampleContent"
    /// One key–value pair inside ``SignedSampleContent``.
    case sampleExtra = "SampleExtra"

    /// The ASN.1 type name.
    public var description: String { rawValue }
}
