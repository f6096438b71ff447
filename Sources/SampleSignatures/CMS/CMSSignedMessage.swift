import Foundation

/// The DER bytes of a CMS `ContentInfo` holding a `SignedData`, with base64
/// and PEM (`-----BEGIN CMS-----`) conversions.
///
/// Creating a message does not parse it; ``CMSVerifier`` does that strictly.
public struct CMSSignedMessage: Sendable, Hashable {
    /// The DER encoding of the `ContentInfo`, as given; nothing is checked until it is verified.
    public let derRepresentation: [UInt8]

    /// Wraps DER bytes without parsing them.
    public init(derRepresentation: some DataProtocol) {
        self.derRepresentation = [UInt8](derRepresentation)
    }

    /// Decodes standard base64 (as stored in HealthKit's digital-signature metadata).
    /// Line breaks and spaces are ignored; any other non-alphabet character is an error.
    public init(base64Encoded text: String) throws(SignatureVerificationError) {
        guard let bytes = Base64.decode(text) else { throw .invalidBase64 }
        self.derRepresentation = bytes
    }

    /// Decodes a PEM document labelled `CMS` (RFC 7468) or `PKCS7`.
    public init(pemRepresentation text: String) throws(SignatureVerificationError) {
        guard let (label, der) = PEM.decode(text), label == "CMS" || label == "PKCS7" else {
            throw .invalidPEM
        }
        self.derRepresentation = der
    }

    /// Standard, padded base64 on one line.
    public var base64EncodedString: String {
        Base64.encode(derRepresentation)
    }

    /// A PEM document labelled `CMS`, which `openssl cms -inform PEM` reads.
    public var pemRepresentation: String {
        PEM.encode(derRepresentation, label: "CMS")
    }
}
