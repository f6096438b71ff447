import SwiftASN1

/// PEM (RFC 7468) framing over swift-asn1's `PEMDocument`.
enum PEM {
    /// Decodes the single PEM document in `text`, returning its label and DER bytes.
    /// Returns `nil` when the text is not one well-formed PEM document.
    static func decode(_ text: String) -> (label: String, der: [UInt8])? {
        guard let document = try? PEMDocument(pemString: text) else { return nil }
        return (document.discriminator, document.derBytes)
    }

    /// Encodes DER bytes as a PEM document with 64-character lines.
    static func encode(_ der: [UInt8], label: String) -> String {
        PEMDocument(type: label, derBytes: der).pemString
    }
}
