import Foundation

/// Standard, padded base64 (RFC 4648 §4), as HealthKit stores sample signatures. (JWK members
/// are base64url: `ByteEncodings.Base64URL`.)
enum Base64 {
    /// Decodes standard, padded base64, ignoring ASCII whitespace (line breaks) but nothing else.
    static func decode(_ text: String) -> [UInt8]? {
        var utf8 = Array(text.utf8)
        utf8.removeAll { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard !utf8.isEmpty else { return nil }
        return Data(base64Encoded: Data(utf8)).map { [UInt8]($0) }
    }

    /// Encodes as standard, padded base64 on one line.
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }
}
