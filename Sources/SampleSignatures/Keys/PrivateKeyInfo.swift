import SwiftASN1

/// ``PrivateKeyInfo`` is PKCS #8's private key structure, defined in ASN.1
/// (RFC 5208 §5, extended as `OneAsymmetricKey` by RFC 5958 §2) as:
/// ```
/// OneAsymmetricKey ::= SEQUENCE {
///   version                   Version,            -- v1(0) or v2(1)
///   privateKeyAlgorithm       AlgorithmIdentifier,
///   privateKey                OCTET STRING,       -- an ECPrivateKey for EC keys
///   attributes            [0] IMPLICIT Attributes OPTIONAL,
///   ...,
///   [[2: publicKey        [1] IMPLICIT BIT STRING OPTIONAL ]],
///   ... }
/// ```
/// The PEM label is `PRIVATE KEY`.
struct PrivateKeyInfo: DERImplicitlyTaggable, Hashable, Sendable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    var algorithm: AlgorithmIdentifier
    var privateKey: ECPrivateKey

    init(algorithm: AlgorithmIdentifier, privateKey: ECPrivateKey) {
        self.algorithm = algorithm
        self.privateKey = privateKey
    }

    init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DERDecoding.within(.privateKeyInfo, at: rootNode) {
            try DER.sequence(rootNode, identifier: identifier) { nodes in
                let version = try Int(derEncoded: &nodes)
                guard version == 0 || version == 1 else {
                    throw KeyError.unsupportedVersion(.privateKeyInfo, version)
                }
                let algorithm = try AlgorithmIdentifier(derEncoded: &nodes)
                try algorithm.requireP256ECKey()
                let octets = try ASN1OctetString(derEncoded: &nodes)
                // Attributes [0] and publicKey [1] are allowed and ignored: the
                // embedded ECPrivateKey's own public key is checked instead.
                _ = DER.optionalImplicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { _ in }
                _ = DER.optionalImplicitlyTagged(&nodes, tagNumber: 1, tagClass: .contextSpecific) { _ in }
                let inner = try DERDecoding.parse(Array(octets.bytes))
                let privateKey = try ECPrivateKey(derEncoded: inner)
                return PrivateKeyInfo(algorithm: algorithm, privateKey: privateKey)
            }
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(0)
            try coder.serialize(algorithm)
            let inner = try DEREncoding.encode(privateKey)
            try coder.serialize(ASN1OctetString(contentBytes: inner[...]))
        }
    }
}
