import Foundation
import Hummingbird

/// The fields of an `application/x-www-form-urlencoded` body; a name may repeat (checkboxes).
struct FormFields: Sendable {
    private(set) var pairs: [(String, String)] = []

    /// Reads a form body of at most `limit` bytes.
    static func read(_ request: Request, limit: Int) async throws -> FormFields {
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: limit) } catch { throw APIError.bodyTooLarge(limit: limit) }
        return parse(String(buffer: buffer))
    }

    /// Parses form text (also a query string).
    static func parse(_ text: String) -> FormFields {
        var f = FormFields()
        for part in text.split(separator: "&", omittingEmptySubsequences: true) {
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String {
                // Most names and values need no decoding; Foundation's decoder is slow per call.
                guard s.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return String(s) }
                return s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            f.pairs.append((decode(kv[0]), kv.count > 1 ? decode(kv[1]) : ""))
        }
        return f
    }

    /// The first value of a field.
    subscript(_ name: String) -> String? { pairs.first { $0.0 == name }?.1 }

    /// Every value of a field.
    func all(_ name: String) -> [String] { pairs.filter { $0.0 == name }.map(\.1) }

    /// Percent-encodes a value for a query string or form.
    static func encode(_ s: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~/")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
