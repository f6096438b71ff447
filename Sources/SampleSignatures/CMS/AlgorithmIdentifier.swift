import SwiftASN1

/// ``AlgorithmIdentifier`` is defined in ASN.1 (RFC 5280 §4.1.1.2) as:
/// ```
/// AlgorithmIdentifier ::= SEQUENCE {
///   algorithm   OBJECT IDENTIFIER,
///   parameters  ANY DEFINED BY algorithm OPTIONAL }
/// ```
struct AlgorithmIdentifier: DERImplicitlyTaggable, Hashable, Sendable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    var algorithm: ASN1ObjectIdentifier
    var parameters: ASN1Any?

    init(algorithm: ASN1ObjectIdentifier, parameters: ASN1Any? = nil) {
        self.algorithm = algorithm
        self.parameters = parameters
    }

    init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DERDecoding.within(.algorithmIdentifier, at: rootNode) {
            try DER.sequence(rootNode, identifier: identifier) { nodes in
                let algorithm = try ASN1ObjectIdentifier(derEncoded: &nodes)
                let parameters = nodes.next().map { ASN1Any(derEncoded: $0) }
                return AlgorithmIdentifier(algorithm: algorithm, parameters: parameters)
            }
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(algorithm)
            if let parameters {
                try coder.serialize(parameters)
            }
        }
    }

    /// SHA-256 with absent parameters (RFC 5754 §2: absent is preferred, NULL accepted).
    static let sha256 = AlgorithmIdentifier(algorithm: CMSObjectIdentifier.sha256)

    /// ecdsa-with-SHA256 with absent parameters (RFC 5758 §3.2: parameters MUST be absent).
    static let ecdsaWithSHA256 = AlgorithmIdentifier(algorithm: CMSObjectIdentifier.ecdsaWithSHA256)

    /// An ASN.1 NULL, as some encoders put in `parameters`.
    static let nullParameters: ASN1Any = {
        // Serializing a NULL cannot fail.
        try! ASN1Any(erasing: ASN1Null())
    }()

    /// Whether this is SHA-256 with absent or NULL parameters.
    var isSHA256: Bool {
        algorithm == CMSObjectIdentifier.sha256 && (parameters == nil || parameters == Self.nullParameters)
    }

    /// Whether this is ecdsa-with-SHA256 with absent parameters.
    var isECDSAWithSHA256: Bool {
        algorithm == CMSObjectIdentifier.ecdsaWithSHA256 && parameters == nil
    }
}
