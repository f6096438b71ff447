import Foundation

/// Base64 helpers: unpadded base64url (RFC 4648 §5) for JWK members, and a
/// strict standard base64 decoder for stored signatures.
enum Base64 {
    /// Decodes unpadded base64url. Padding, whitespace and standard-alphabet `+`/`/` are rejected.
    static func decodeURL(_ text: String) -> [UInt8]? {
        guard !text.contains("="), !text.contains("+"), !text.contains("/") else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch standard.utf8.count % 4 {
        case 0: break
        case 2: standard += "=="
        case 3: standard += "="
        default: return nil
        }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }

    /// Encodes as unpadded base64url.
    static func encodeURL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

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
