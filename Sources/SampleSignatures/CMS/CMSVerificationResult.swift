import Foundation
import SwiftASN1

/// What a successful ``CMSVerifier/verify(_:detachedContent:)`` established.
public struct CMSVerificationResult: Sendable, Hashable {
    /// How the message named its signer.
    public let signer: CMSSignerIdentity
    /// The trusted key or certificate the signature verified under.
    public let trustedSigner: TrustedSigner
    /// Whether the signature covered signed attributes (rather than the content directly).
    public let hasSignedAttributes: Bool
    /// The signing-time attribute, if present.
    public let signingTime: Date?
    /// The signed content: the message's `eContent`, or the detached content supplied.
    public let content: [UInt8]
    /// `eContentType`.
    public let contentType: ASN1ObjectIdentifier
    /// Whether the content was supplied separately.
    public let isDetached: Bool
}
