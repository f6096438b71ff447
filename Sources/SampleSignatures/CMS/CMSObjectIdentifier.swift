import SwiftASN1

/// Object identifiers used by the CMS, key and certificate code in this module.
public enum CMSObjectIdentifier {
    /// `id-data` (1.2.840.113549.1.7.1): arbitrary octets; the default content type.
    public static let data: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]
    /// `id-signedData` (1.2.840.113549.1.7.2).
    public static let signedData: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    /// `id-sha256` (2.16.840.1.101.3.4.2.1).
    public static let sha256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    /// `ecdsa-with-SHA256` (1.2.840.10045.4.3.2).
    public static let ecdsaWithSHA256: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 2]
    /// `id-contentType` signed attribute (1.2.840.113549.1.9.3).
    public static let contentTypeAttribute: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 3]
    /// `id-messageDigest` signed attribute (1.2.840.113549.1.9.4).
    public static let messageDigestAttribute: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 4]
    /// `id-signingTime` signed attribute (1.2.840.113549.1.9.5).
    public static let signingTimeAttribute: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 5]
    /// `id-ecPublicKey` (1.2.840.10045.2.1).
    public static let ecPublicKey: ASN1ObjectIdentifier = [1, 2, 840, 10045, 2, 1]
    /// `prime256v1` / `secp256r1`, NIST P-256 (1.2.840.10045.3.1.7).
    public static let p256: ASN1ObjectIdentifier = [1, 2, 840, 10045, 3, 1, 7]
    /// `secp384r1`, NIST P-384 (1.3.132.0.34). Recognised only to be rejected clearly.
    public static let p384: ASN1ObjectIdentifier = [1, 3, 132, 0, 34]
    /// `secp521r1`, NIST P-521 (1.3.132.0.35). Recognised only to be rejected clearly.
    public static let p521: ASN1ObjectIdentifier = [1, 3, 132, 0, 35]
}
