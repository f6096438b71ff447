import SwiftASN1

/// ``Attribute`` is defined in ASN.1 (RFC 5652 §5.3) as:
/// ```
/// Attribute ::= SEQUENCE {
///   attrType OBJECT IDENTIFIER,
///   attrValues SET OF AttributeValue }
///
/// AttributeValue ::= ANY
/// ```
struct Attribute: DERImplicitlyTaggable, Hashable, Sendable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    var attrType: ASN1ObjectIdentifier
    var attrValues: [ASN1Any]

    init(attrType: ASN1ObjectIdentifier, attrValues: [ASN1Any]) {
        self.attrType = attrType
        self.attrValues = attrValues
    }

    init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DERDecoding.within(.attribute, at: rootNode) {
            try DER.sequence(rootNode, identifier: identifier) { nodes in
                let attrType = try ASN1ObjectIdentifier(derEncoded: &nodes)
                let attrValues = try DER.set(of: ASN1Any.self, identifier: .set, nodes: &nodes)
                return Attribute(attrType: attrType, attrValues: attrValues)
            }
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(attrType)
            try coder.serializeSetOf(attrValues)
        }
    }
}
