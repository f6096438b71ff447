import SwiftASN1

/// ``SignerIdentifier`` is defined in ASN.1 (RFC 5652 §5.3) as:
/// ```
/// SignerIdentifier ::= CHOICE {
///   issuerAndSerialNumber IssuerAndSerialNumber,
///   subjectKeyIdentifier [0] SubjectKeyIdentifier }
///
/// SubjectKeyIdentifier ::= OCTET STRING
/// ```
enum SignerIdentifier: DERParseable, DERSerializable, Hashable, Sendable {
    static let subjectKeyIdentifierTag = ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)

    case issuerAndSerialNumber(IssuerAndSerialNumber)
    case subjectKeyIdentifier(ArraySlice<UInt8>)

    init(derEncoded node: ASN1Node) throws {
        self = try DERDecoding.within(.signerIdentifier, at: node) {
            switch node.identifier {
            case IssuerAndSerialNumber.defaultIdentifier:
                return .issuerAndSerialNumber(try IssuerAndSerialNumber(derEncoded: node))
            case Self.subjectKeyIdentifierTag:
                let octets = try ASN1OctetString(derEncoded: node, withIdentifier: Self.subjectKeyIdentifierTag)
                return .subjectKeyIdentifier(octets.bytes)
            default:
                throw ASN1Error.unexpectedFieldType(node.identifier)
            }
        }
    }

    func serialize(into coder: inout DER.Serializer) throws {
        switch self {
        case .issuerAndSerialNumber(let issuerAndSerialNumber):
            try coder.serialize(issuerAndSerialNumber)
        case .subjectKeyIdentifier(let keyIdentifier):
            try ASN1OctetString(contentBytes: keyIdentifier).serialize(into: &coder, withIdentifier: Self.subjectKeyIdentifierTag)
        }
    }

    /// The SignerInfo version RFC 5652 §5.3 requires with this choice.
    var requiredSignerInfoVersion: Int {
        switch self {
        case .issuerAndSerialNumber: 1
        case .subjectKeyIdentifier: 3
        }
    }
}
