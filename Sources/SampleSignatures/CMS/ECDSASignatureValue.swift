import SwiftASN1

/// ``ECDSASignatureValue`` is defined in ASN.1 (RFC 3279 §2.2.3, RFC 5480) as:
/// ```
/// ECDSA-Sig-Value ::= SEQUENCE {
///   r INTEGER,
///   s INTEGER }
/// ```
/// This is what a CMS `SignerInfo.signature` OCTET STRING holds for ECDSA.
/// Parsing is strict DER: minimal INTEGER encodings, no negative values, no
/// trailing bytes.
struct ECDSASignatureValue: DERImplicitlyTaggable, Hashable, Sendable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    /// Big-endian magnitude of `r`, without leading zero octets.
    var r: ArraySlice<UInt8>
    /// Big-endian magnitude of `s`, without leading zero octets.
    var s: ArraySlice<UInt8>

    init(r: ArraySlice<UInt8>, s: ArraySlice<UInt8>) {
        self.r = r
        self.s = s
    }

    init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DERDecoding.within(.ecdsaSignature, at: rootNode) {
            try DER.sequence(rootNode, identifier: identifier) { nodes in
                let r = try ArraySlice<UInt8>(derEncoded: &nodes)
                let s = try ArraySlice<UInt8>(derEncoded: &nodes)
                return ECDSASignatureValue(r: r, s: s)
            }
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(r)
            try coder.serialize(s)
        }
    }
}
