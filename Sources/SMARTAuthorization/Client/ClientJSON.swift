import FHIR
import Foundation

/// The JSON reading the client documents share, so every server answer is read with the
/// project's bounded reader and its members checked the same way.
enum ClientJSON {
    /// Limits for small server documents (smart-configuration, token and error answers): a
    /// megabyte and shallow nesting is far more than any real one needs.
    static let smallDocumentLimits = JSONLimits(maxDocumentBytes: 1 << 20, maxDepth: 32, maxStringBytes: 256 * 1024, maxContainerElements: 10_000)

    /// The document's top-level value.
    static func value(_ data: Data, limits: JSONLimits = smallDocumentLimits) throws(SMARTClientError) -> JSONValue {
        guard data.count <= limits.maxDocumentBytes else {
            throw .notJSON("the document is \(data.count) bytes, more than \(limits.maxDocumentBytes)")
        }
        do { return try JSONReader(limits: limits).read(data) } catch { throw .notJSON(error.description) }
    }

    /// The document's top-level object.
    static func object(_ data: Data, limits: JSONLimits = smallDocumentLimits) throws(SMARTClientError) -> JSONObject {
        guard let object = try value(data, limits: limits).objectValue else { throw .notJSON("the document is not a JSON object") }
        return object
    }

    /// A string member; nil when absent or null, an error when of another type.
    static func string(_ object: JSONObject, _ member: String) throws(SMARTClientError) -> String? {
        guard let value = object[member], !value.isNull else { return nil }
        guard let text = value.stringValue else { throw .missingMember("\(member) (a string)") }
        return text
    }

    /// An array-of-strings member; empty when absent or null.
    static func strings(_ object: JSONObject, _ member: String) throws(SMARTClientError) -> [String] {
        guard let value = object[member], !value.isNull else { return [] }
        guard let array = value.arrayValue else { throw .missingMember("\(member) (an array of strings)") }
        var result: [String] = []
        for element in array {
            guard let text = element.stringValue else { throw .missingMember("\(member) (an array of strings)") }
            result.append(text)
        }
        return result
    }

    /// `text` as an absolute http or https URL, resolved against `base` when relative.
    static func url(_ text: String, member: String, base: URL?) throws(SMARTClientError) -> URL {
        guard let url = webURL(text, base: base) else { throw .invalidURL(member: member, value: text) }
        return url
    }

    /// `text` as an absolute http or https URL with a host, resolved against `base` when
    /// relative; nil when it is not one.
    static func webURL(_ text: String, base: URL?) -> URL? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, let parsed = URL(string: trimmed, relativeTo: base)?.absoluteURL,
              let scheme = parsed.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = parsed.host, !host.isEmpty
        else { return nil }
        return parsed
    }
}
