import SwiftASN1

/// The signed attributes this module reads (RFC 5652 §11).
public enum SignedAttributeKind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// `content-type` (1.2.840.113549.1.9.3): must equal `eContentType`.
    case contentType = "content-type"
    /// `message-digest` (1.2.840.113549.1.9.4): SHA-256 of the content.
    case messageDigest = "message-digest"
    /// `signing-time` (1.2.840.113549.1.9.5): optional, UTCTime or GeneralizedTime.
    case signingTime = "signing-time"

    /// The attribute's object identifier.
    public var objectIdentifier: ASN1ObjectIdentifier {
        switch self {
        case .contentType: CMSObjectIdentifier.contentTypeAttribute
        case .messageDigest: CMSObjectIdentifier.messageDigestAttribute
        case .signingTime: CMSObjectIdentifier.signingTimeAttribute
        }
    }

    /// The attribute's name as in RFC 5652.
    public var description: String { rawValue }
}
