import SwiftASN1

/// ``SignedData`` is defined in ASN.1 (RFC 5652 §5.1) as:
/// ```
/// SignedData ::= SEQUENCE {
///   version CMSVersion,
///   digestAlgorithms DigestAlgorithmIdentifiers,
///   encapContentInfo EncapsulatedContentInfo,
///   certificates [0] IMPLICIT CertificateSet OPTIONAL,
///   crls [1] IMPLICIT RevocationInfoChoices OPTIONAL,
///   signerInfos SignerInfos }
///
/// DigestAlgorithmIdentifiers ::= SET OF DigestAlgorithmIdentifier
/// SignerInfos ::= SET OF SignerInfo
/// CertificateSet ::= SET OF CertificateChoices
/// RevocationInfoChoices ::= SET OF RevocationInfoChoice
/// ```
/// Certificates are kept as undecoded values (most verifications never need
/// them); revocation information is checked for shape and then ignored.
/// Parsing enforces the version rules of §5.1.
struct SignedData: DERImplicitlyTaggable, Hashable, Sendable {
    static var defaultIdentifier: ASN1Identifier { .sequence }
    static let certificatesTag = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)
    static let crlsTag = ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific)

    var version: Int
    var digestAlgorithms: [AlgorithmIdentifier]
    var encapContentInfo: EncapsulatedContentInfo
    /// `CertificateChoices` values, undecoded. X.509 certificates are the ones tagged SEQUENCE.
    var certificates: [ASN1Any]?
    var signerInfos: [SignerInfo]

    /// Builds a SignedData with the version RFC 5652 §5.1 requires for its contents.
    init(
        digestAlgorithms: [AlgorithmIdentifier],
        encapContentInfo: EncapsulatedContentInfo,
        certificates: [ASN1Any]?,
        signerInfos: [SignerInfo]
    ) {
        self.digestAlgorithms = digestAlgorithms
        self.encapContentInfo = encapContentInfo
        self.certificates = certificates
        self.signerInfos = signerInfos
        self.version = Self.requiredVersion(
            certificateTags: [],
            otherRevocationInfo: false,
            signerInfos: signerInfos,
            eContentType: encapContentInfo.eContentType
        )
    }

    init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DERDecoding.within(.signedData, at: rootNode) {
            try DER.sequence(rootNode, identifier: identifier) { nodes in
                let version = try Int(derEncoded: &nodes)
                let digestAlgorithms = try DER.set(of: AlgorithmIdentifier.self, identifier: .set, nodes: &nodes)
                let encapContentInfo = try EncapsulatedContentInfo(derEncoded: &nodes)
                let certificates = try DER.optionalImplicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { node in
                    let values = try DER.set(of: ASN1Any.self, identifier: Self.certificatesTag, rootNode: node)
                    return (values, Self.childTags(of: node))
                }
                let otherRevocationInfo = try DER.optionalImplicitlyTagged(&nodes, tagNumber: 1, tagClass: .contextSpecific) { node in
                    _ = try DER.set(of: ASN1Any.self, identifier: Self.crlsTag, rootNode: node)
                    // RevocationInfoChoice `other` is [1] IMPLICIT OtherRevocationInfoFormat.
                    return Self.childTags(of: node).contains(ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific))
                }
                let signerInfos = try DER.set(of: SignerInfo.self, identifier: .set, nodes: &nodes)

                let required = Self.requiredVersion(
                    certificateTags: certificates?.1 ?? [],
                    otherRevocationInfo: otherRevocationInfo ?? false,
                    signerInfos: signerInfos,
                    eContentType: encapContentInfo.eContentType
                )
                guard version == required else {
                    throw SignatureVerificationError.unsupportedVersion(.signedData, version)
                }
                var signedData = SignedData(
                    digestAlgorithms: digestAlgorithms,
                    encapContentInfo: encapContentInfo,
                    certificates: certificates?.0,
                    signerInfos: signerInfos
                )
                signedData.version = version
                return signedData
            }
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(version)
            try coder.serializeSetOf(digestAlgorithms)
            try coder.serialize(encapContentInfo)
            if let certificates {
                try coder.serializeSetOf(certificates, identifier: Self.certificatesTag)
            }
            try coder.serializeSetOf(signerInfos)
        }
    }

    private static func childTags(of node: ASN1Node) -> [ASN1Identifier] {
        guard case .constructed(let children) = node.content else { return [] }
        return children.map(\.identifier)
    }

    /// The SignedData version RFC 5652 §5.1 prescribes.
    static func requiredVersion(
        certificateTags: [ASN1Identifier],
        otherRevocationInfo: Bool,
        signerInfos: [SignerInfo],
        eContentType: ASN1ObjectIdentifier
    ) -> Int {
        func hasCertificate(tagged number: UInt) -> Bool {
            certificateTags.contains(ASN1Identifier(tagWithNumber: number, tagClass: .contextSpecific))
        }
        if hasCertificate(tagged: 3) || otherRevocationInfo {
            return 5
        }
        if hasCertificate(tagged: 2) {
            return 4
        }
        if hasCertificate(tagged: 1) || signerInfos.contains(where: { $0.version == 3 })
            || eContentType != CMSObjectIdentifier.data
        {
            return 3
        }
        return 1
    }
}
