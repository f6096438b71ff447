import SwiftASN1
import X509

/// ``IssuerAndSerialNumber`` is defined in ASN.1 (RFC 5652 §10.2.4) as:
/// ```
/// IssuerAndSerialNumber ::= SEQUENCE {
///   issuer Name,
///   serialNumber CertificateSerialNumber }
///
/// CertificateSerialNumber ::= INTEGER
/// ```
struct IssuerAndSerialNumber: DERImplicitlyTaggable, Hashable, Sendable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    var issuer: DistinguishedName
    /// The serial number's big-endian magnitude, without a leading zero octet.
    var serialNumber: ArraySlice<UInt8>

    init(issuer: DistinguishedName, serialNumber: ArraySlice<UInt8>) {
        self.issuer = issuer
        self.serialNumber = serialNumber
    }

    /// Identifies `certificate` by its issuer and serial number.
    init(certificate: Certificate) {
        self.init(issuer: certificate.issuer, serialNumber: certificate.serialNumber.bytes)
    }

    init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DERDecoding.within(.issuerAndSerialNumber, at: rootNode) {
            try DER.sequence(rootNode, identifier: identifier) { nodes in
                let issuer = try DistinguishedName(
                    derEncoded: DERDecoding.next(&nodes, in: .issuerAndSerialNumber, at: rootNode)
                )
                let serialNumber = try ArraySlice<UInt8>(derEncoded: &nodes)
                return IssuerAndSerialNumber(issuer: issuer, serialNumber: serialNumber)
            }
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(issuer)
            try coder.serialize(serialNumber)
        }
    }

    /// Whether this names `certificate`.
    func identifies(_ certificate: Certificate) -> Bool {
        Self.magnitude(serialNumber).elementsEqual(Self.magnitude(certificate.serialNumber.bytes)) && issuer == certificate.issuer
    }

    /// Strips leading zero octets so serial numbers compare by value.
    private static func magnitude(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        bytes.drop(while: { $0 == 0 })
    }
}
