import SwiftASN1

/// ``ContentInfo`` is defined in ASN.1 (RFC 5652 §3) as:
/// ```
/// ContentInfo ::= SEQUENCE {
///   contentType ContentType,
///   content [0] EXPLICIT ANY DEFINED BY contentType }
///
/// ContentType ::= OBJECT IDENTIFIER
/// ```
/// Only `id-signedData` content is supported; any other content type is
/// rejected with ``SignatureVerificationError/unsupportedContentType(_:)``.
struct ContentInfo: DERImplicitlyTaggable, Hashable, Sendable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    var signedData: SignedData

    /// Always `id-signedData`.
    var contentType: ASN1ObjectIdentifier { CMSObjectIdentifier.signedData }

    init(signedData: SignedData) {
        self.signedData = signedData
    }

    init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DERDecoding.within(.contentInfo, at: rootNode) {
            try DER.sequence(rootNode, identifier: identifier) { nodes in
                let contentType = try ASN1ObjectIdentifier(derEncoded: &nodes)
                guard contentType == CMSObjectIdentifier.signedData else {
                    throw SignatureVerificationError.unsupportedContentType(contentType)
                }
                let signedData = try DER.explicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { node in
                    try SignedData(derEncoded: node)
                }
                return ContentInfo(signedData: signedData)
            }
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(contentType)
            try coder.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { coder in
                try coder.serialize(signedData)
            }
        }
    }
}
