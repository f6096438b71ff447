import SwiftASN1

/// ``ECPrivateKey`` is SEC 1's EC private key structure, defined in ASN.1
/// (RFC 5915 §3) as:
/// ```
/// ECPrivateKey ::= SEQUENCE {
///   version        INTEGER { ecPrivkeyVer1(1) } (ecPrivkeyVer1),
///   privateKey     OCTET STRING,
///   parameters [0] ECParameters {{ NamedCurve }} OPTIONAL,
///   publicKey  [1] BIT STRING OPTIONAL }
/// ```
/// The PEM label is `EC PRIVATE KEY`; inside PKCS #8 the `parameters` are
/// usually left out because the outer algorithm names the curve.
struct ECPrivateKey: DERImplicitlyTaggable, Hashable, Sendable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    var privateKey: ArraySlice<UInt8>
    var curve: ASN1ObjectIdentifier?
    var publicKey: ASN1BitString?

    init(privateKey: ArraySlice<UInt8>, curve: ASN1ObjectIdentifier?, publicKey: ASN1BitString?) {
        self.privateKey = privateKey
        self.curve = curve
        self.publicKey = publicKey
    }

    init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DERDecoding.within(.ecPrivateKey, at: rootNode) {
            try DER.sequence(rootNode, identifier: identifier) { nodes in
                let version = try Int(derEncoded: &nodes)
                guard version == 1 else {
                    throw KeyError.unsupportedVersion(.ecPrivateKey, version)
                }
                let privateKey = try ASN1OctetString(derEncoded: &nodes).bytes
                let parameters = try DER.optionalExplicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { node in
                    ASN1Any(derEncoded: node)
                }
                let publicKey = try DER.optionalExplicitlyTagged(&nodes, tagNumber: 1, tagClass: .contextSpecific) { node in
                    try ASN1BitString(derEncoded: node)
                }
                var curve: ASN1ObjectIdentifier?
                if let parameters {
                    guard let named = try? ASN1ObjectIdentifier(asn1Any: parameters) else {
                        throw KeyError.missingCurve
                    }
                    curve = named
                }
                return ECPrivateKey(privateKey: privateKey, curve: curve, publicKey: publicKey)
            }
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(1)
            try coder.serialize(ASN1OctetString(contentBytes: privateKey))
            if let curve {
                try coder.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { coder in
                    try coder.serialize(curve)
                }
            }
            if let publicKey {
                try coder.serialize(explicitlyTaggedWithTagNumber: 1, tagClass: .contextSpecific) { coder in
                    try coder.serialize(publicKey)
                }
            }
        }
    }
}
