import SwiftASN1

/// ``SubjectPublicKeyInfo`` is defined in ASN.1 (RFC 5280 §4.1, RFC 5480 §2) as:
/// ```
/// SubjectPublicKeyInfo ::= SEQUENCE {
///   algorithm         AlgorithmIdentifier,
///   subjectPublicKey  BIT STRING }
///
/// -- for id-ecPublicKey:
/// ECParameters ::= CHOICE {
///   namedCurve      OBJECT IDENTIFIER
///   -- implicitCurve   NULL
///   -- specifiedCurve  SpecifiedECDomain }
/// ```
struct SubjectPublicKeyInfo: DERImplicitlyTaggable, Hashable, Sendable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    var algorithm: AlgorithmIdentifier
    var subjectPublicKey: ASN1BitString

    init(algorithm: AlgorithmIdentifier, subjectPublicKey: ASN1BitString) {
        self.algorithm = algorithm
        self.subjectPublicKey = subjectPublicKey
    }

    /// An `id-ecPublicKey` / P-256 key info for an uncompressed point.
    init(p256Point: [UInt8]) {
        self.init(
            algorithm: .ecPublicKey(curve: CMSObjectIdentifier.p256),
            subjectPublicKey: ASN1BitString(bytes: p256Point[...])
        )
    }

    init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DERDecoding.within(.subjectPublicKeyInfo, at: rootNode) {
            try DER.sequence(rootNode, identifier: identifier) { nodes in
                let algorithm = try AlgorithmIdentifier(derEncoded: &nodes)
                let subjectPublicKey = try ASN1BitString(derEncoded: &nodes)
                return SubjectPublicKeyInfo(algorithm: algorithm, subjectPublicKey: subjectPublicKey)
            }
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(algorithm)
            try coder.serialize(subjectPublicKey)
        }
    }
}

extension AlgorithmIdentifier {
    /// `id-ecPublicKey` with a named curve.
    static func ecPublicKey(curve: ASN1ObjectIdentifier) -> AlgorithmIdentifier {
        // Serializing an OBJECT IDENTIFIER cannot fail.
        AlgorithmIdentifier(algorithm: CMSObjectIdentifier.ecPublicKey, parameters: try! ASN1Any(erasing: curve))
    }

    /// Checks this is `id-ecPublicKey` on P-256.
    func requireP256ECKey() throws(KeyError) {
        guard algorithm == CMSObjectIdentifier.ecPublicKey else {
            throw .unsupportedKeyAlgorithm(algorithm)
        }
        guard let parameters, let curve = try? ASN1ObjectIdentifier(asn1Any: parameters) else {
            throw .missingCurve
        }
        guard curve == CMSObjectIdentifier.p256 else {
            throw .unsupportedCurve(curve)
        }
    }
}
