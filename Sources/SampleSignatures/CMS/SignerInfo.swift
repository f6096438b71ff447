import SwiftASN1

/// ``SignerInfo`` is defined in ASN.1 (RFC 5652 §5.3) as:
/// ```
/// SignerInfo ::= SEQUENCE {
///   version CMSVersion,
///   sid SignerIdentifier,
///   digestAlgorithm DigestAlgorithmIdentifier,
///   signedAttrs [0] IMPLICIT SignedAttributes OPTIONAL,
///   signatureAlgorithm SignatureAlgorithmIdentifier,
///   signature SignatureValue,
///   unsignedAttrs [1] IMPLICIT UnsignedAttributes OPTIONAL }
///
/// SignedAttributes ::= SET SIZE (1..MAX) OF Attribute
/// UnsignedAttributes ::= SET SIZE (1..MAX) OF Attribute
/// SignatureValue ::= OCTET STRING
/// ```
/// The version is 1 when `sid` is `issuerAndSerialNumber` and 3 when it is
/// `subjectKeyIdentifier`; parsing rejects any other combination.
struct SignerInfo: DERImplicitlyTaggable, Hashable, Sendable {
    static var defaultIdentifier: ASN1Identifier { .sequence }
    static let signedAttributesTag = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
    static let unsignedAttributesTag = ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)

    var version: Int
    var signerIdentifier: SignerIdentifier
    var digestAlgorithm: AlgorithmIdentifier
    var signedAttributes: [Attribute]?
    /// The exact `[0] IMPLICIT` bytes of `signedAttrs` as received; `nil` for values built in memory.
    var signedAttributesEncoding: ArraySlice<UInt8>?
    var signatureAlgorithm: AlgorithmIdentifier
    var signature: ArraySlice<UInt8>
    var unsignedAttributes: [Attribute]?

    init(
        signerIdentifier: SignerIdentifier,
        digestAlgorithm: AlgorithmIdentifier,
        signedAttributes: [Attribute]?,
        signatureAlgorithm: AlgorithmIdentifier,
        signature: ArraySlice<UInt8>,
        unsignedAttributes: [Attribute]? = nil
    ) {
        self.version = signerIdentifier.requiredSignerInfoVersion
        self.signerIdentifier = signerIdentifier
        self.digestAlgorithm = digestAlgorithm
        self.signedAttributes = signedAttributes
        self.signedAttributesEncoding = nil
        self.signatureAlgorithm = signatureAlgorithm
        self.signature = signature
        self.unsignedAttributes = unsignedAttributes
    }

    init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DERDecoding.within(.signerInfo, at: rootNode) {
            try DER.sequence(rootNode, identifier: identifier) { nodes in
                let version = try Int(derEncoded: &nodes)
                let signerIdentifier = try SignerIdentifier(derEncoded: &nodes)
                guard version == signerIdentifier.requiredSignerInfoVersion else {
                    throw SignatureVerificationError.unsupportedVersion(.signerInfo, version)
                }
                let digestAlgorithm = try AlgorithmIdentifier(derEncoded: &nodes)
                let signed = try DER.optionalImplicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { node in
                    let attributes = try DER.set(of: Attribute.self, identifier: Self.signedAttributesTag, rootNode: node)
                    return (attributes, node.encodedBytes)
                }
                let signatureAlgorithm = try AlgorithmIdentifier(derEncoded: &nodes)
                let signature = try ASN1OctetString(derEncoded: &nodes).bytes
                let unsignedAttributes = try DER.optionalImplicitlyTagged(&nodes, tagNumber: 1, tagClass: .contextSpecific) { node in
                    try DER.set(of: Attribute.self, identifier: Self.unsignedAttributesTag, rootNode: node)
                }
                var info = SignerInfo(
                    signerIdentifier: signerIdentifier,
                    digestAlgorithm: digestAlgorithm,
                    signedAttributes: signed?.0,
                    signatureAlgorithm: signatureAlgorithm,
                    signature: signature,
                    unsignedAttributes: unsignedAttributes
                )
                info.signedAttributesEncoding = signed?.1
                return info
            }
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(version)
            try coder.serialize(signerIdentifier)
            try coder.serialize(digestAlgorithm)
            if let signedAttributes {
                try coder.serializeSetOf(signedAttributes, identifier: Self.signedAttributesTag)
            }
            try coder.serialize(signatureAlgorithm)
            try coder.serialize(ASN1OctetString(contentBytes: signature))
            if let unsignedAttributes {
                try coder.serializeSetOf(unsignedAttributes, identifier: Self.unsignedAttributesTag)
            }
        }
    }

    /// The DER encoding of `attributes` as a `SET OF` (tag 0x31): the bytes a
    /// signature over signed attributes covers (RFC 5652 §5.4).
    static func signedAttributesSigningInput(_ attributes: [Attribute]) throws -> [UInt8] {
        var coder = DER.Serializer()
        try coder.serializeSetOf(attributes, identifier: .set)
        return coder.serializedBytes
    }
}
