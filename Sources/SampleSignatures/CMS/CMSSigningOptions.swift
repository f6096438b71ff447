import Foundation
import SwiftASN1

/// How ``CMSSigner`` builds a SignedData.
public struct CMSSigningOptions: Sendable, Hashable {
    /// Leave the content out of the message (`eContent` absent); the verifier must be given it.
    public var detached: Bool
    /// Sign content-type, message-digest (and signing-time) attributes instead of the content directly.
    public var includesSignedAttributes: Bool
    /// The signing-time attribute's value, truncated to whole seconds; only used with signed attributes.
    public var signingTime: Date?
    /// `eContentType`; `id-data` by default. Any other type requires signed attributes (RFC 5652 §5.3).
    public var contentType: ASN1ObjectIdentifier

    /// Creates options; the defaults give an attached `id-data` message with signed attributes.
    public init(
        detached: Bool = false,
        includesSignedAttributes: Bool = true,
        signingTime: Date? = nil,
        contentType: ASN1ObjectIdentifier = CMSObjectIdentifier.data
    ) {
        self.detached = detached
        self.includesSignedAttributes = includesSignedAttributes
        self.signingTime = signingTime
        self.contentType = contentType
    }
}
