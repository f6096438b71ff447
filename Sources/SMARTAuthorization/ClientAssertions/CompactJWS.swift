import ByteEncodings
import FHIR

/// A compact JWS (RFC 7515 §7.1) split and decoded, before any check of what it says.
struct CompactJWS: Sendable {
    /// The protected header.
    let header: JSONObject
    /// The payload, a JSON object (JWT claims).
    let claims: JSONObject
    /// `BASE64URL(header) || '.' || BASE64URL(payload)`: the bytes signed.
    let signingInput: [UInt8]
    /// The signature bytes.
    let signature: [UInt8]

    /// JSON limits for a header or a claims set: small and shallow.
    private static let limits = JSONLimits(maxDocumentBytes: 16 * 1024, maxDepth: 8, maxStringBytes: 8 * 1024, maxContainerElements: 256)

    /// Splits and decodes `text`: three strict base64url parts, the first two JSON objects
    /// with no member twice.
    init(_ text: String) throws(ClientAssertionError) {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .notCompactJWS("expected 3 dot-separated parts, found \(parts.count)") }
        guard !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else { throw .notCompactJWS("an empty part") }
        func decode(_ part: Substring.UTF8View.SubSequence, _ name: String) throws(ClientAssertionError) -> [UInt8] {
            do { return try Base64URL.decode(String(Substring(part))) } catch { throw .notCompactJWS("the \(name) is not base64url: \(error)") }
        }
        header = try Self.object(decode(parts[0], "header"), part: "header")
        claims = try Self.object(decode(parts[1], "payload"), part: "claims")
        signature = try decode(parts[2], "signature")
        signingInput = Array(parts[0]) + [UInt8(ascii: ".")] + Array(parts[1])
    }

    private static func object(_ bytes: [UInt8], part: String) throws(ClientAssertionError) -> JSONObject {
        let value: JSONValue
        do { value = try JSONReader(limits: limits).read(bytes) } catch { throw .notJSONObject(part: part, reason: error.description) }
        guard let object = value.objectValue else { throw .notJSONObject(part: part, reason: "not an object") }
        var seen = Set<String>()
        for key in object.keys where !seen.insert(key).inserted { throw .duplicateMember(part: part, member: key) }
        return object
    }
}
