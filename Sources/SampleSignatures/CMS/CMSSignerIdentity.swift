import X509

/// How a verified message named its signer (RFC 5652 `SignerIdentifier`).
public enum CMSSignerIdentity: Sendable, Hashable {
    /// `subjectKeyIdentifier` (SignerInfo version 3).
    case subjectKeyIdentifier([UInt8])
    /// `issuerAndSerialNumber` (SignerInfo version 1); the serial number is a big-endian magnitude.
    case issuerAndSerialNumber(issuer: DistinguishedName, serialNumber: [UInt8])

    init(_ identifier: SignerIdentifier) {
        switch identifier {
        case .subjectKeyIdentifier(let keyIdentifier):
            self = .subjectKeyIdentifier(Array(keyIdentifier))
        case .issuerAndSerialNumber(let issuerAndSerialNumber):
            self = .issuerAndSerialNumber(
                issuer: issuerAndSerialNumber.issuer,
                serialNumber: Array(issuerAndSerialNumber.serialNumber.drop(while: { $0 == 0 }))
            )
        }
    }
}
