import SwiftASN1

/// ``EncapsulatedContentInfo`` is defined in ASN.1 (RFC 5652 §5.2) as:
/// ```
/// EncapsulatedContentInfo ::= SEQUENCE {
///   eContentType ContentType,
///   eContent [0] EXPLICIT OCTET STRING OPTIONAL }
///
/// ContentType ::= OBJECT IDENTIFIER
/// ```
/// `eContent` is absent for a detached signature.
struct EncapsulatedContentInfo: DERImplicitlyTaggable, Hashable, Sendable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    var eContentType: ASN1ObjectIdentifier
    var eContent: ArraySlice<UInt8>?

    init(eContentType: ASN1ObjectIdentifier, eContent: ArraySlice<UInt8>?) {
        self.eContentType = eContentType
        self.eContent = eContent
    }

    init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DERDecoding.within(.encapsulatedContentInfo, at: rootNode) {
            try DER.sequence(rootNode, identifier: identifier) { nodes in
                let eContentType = try ASN1ObjectIdentifier(derEncoded: &nodes)
                let eContent = try DER.optionalExplicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { node in
                    try ASN1OctetString(derEncoded: node).bytes
                }
                return EncapsulatedContentInfo(eContentType: eContentType, eContent: eContent)
            }
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(eContentType)
            if let eContent {
                try coder.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { coder in
                    try coder.serialize(ASN1OctetString(contentBytes: eContent))
                }
            }
        }
    }
}
