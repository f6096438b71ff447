import Foundation
import Hummingbird

/// The parts of a `multipart/form-data` body (RFC 7578), read whole and bounded: the body is
/// collected up to a limit, parts are capped in number, and headers in size.
struct MultipartForm: Sendable {
    /// One part: a field or a file.
    struct Part: Sendable {
        /// The field's name.
        let name: String
        /// The file's name, for a file field (path parts dropped).
        let filename: String?
        /// The part's bytes.
        let data: Data
    }

    /// Why a body is not a form this server reads.
    enum Failure: Error, Equatable {
        case notMultipart
        case malformed(String)
        case tooManyParts(limit: Int)
    }

    static let maxParts = 16
    static let maxHeaderBytes = 4096

    let parts: [Part]

    /// The first part with this name.
    func part(_ name: String) -> Part? { parts.first { $0.name == name } }

    /// A text field's value.
    subscript(_ name: String) -> String? { part(name).map { String(decoding: $0.data, as: UTF8.self) } }

    /// Reads a request's body of at most `limit` bytes.
    static func read(_ request: Request, limit: Int) async throws -> MultipartForm {
        guard let type = request.headers[.contentType], let boundary = boundary(type) else { throw Failure.notMultipart }
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: limit) } catch { throw APIError.bodyTooLarge(limit: limit) }
        return try parse(Data(buffer: buffer), boundary: boundary)
    }

    /// The boundary named by a content type, if it is `multipart/form-data`.
    static func boundary(_ contentType: String) -> String? {
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == "multipart/form-data" else { return nil }
        for p in parts.dropFirst() where p.lowercased().hasPrefix("boundary=") {
            var b = String(p.dropFirst("boundary=".count))
            if b.hasPrefix("\""), b.hasSuffix("\""), b.count >= 2 { b = String(b.dropFirst().dropLast()) }
            // RFC 2046: 1 to 70 characters.
            return (1...70).contains(b.utf8.count) ? b : nil
        }
        return nil
    }

    static func parse(_ body: Data, boundary: String) throws -> MultipartForm {
        let bytes = [UInt8](body)
        let delimiter = Array(("--" + boundary).utf8)
        let separator = Array(("\r\n--" + boundary).utf8)
        guard let first = find(delimiter, in: bytes, from: 0) else { throw Failure.malformed("no boundary") }
        var position = first + delimiter.count
        var parts: [Part] = []
        while true {
            // After a delimiter: `--` ends the body, CRLF starts a part.
            if bytes.count >= position + 2, bytes[position] == 0x2D, bytes[position + 1] == 0x2D { break }
            guard bytes.count >= position + 2, bytes[position] == 0x0D, bytes[position + 1] == 0x0A else { throw Failure.malformed("a boundary not followed by a line break") }
            position += 2
            guard let headerEnd = find([0x0D, 0x0A, 0x0D, 0x0A], in: bytes, from: position), headerEnd - position <= maxHeaderBytes else {
                throw Failure.malformed("part headers missing or too long")
            }
            let headers = String(decoding: bytes[position..<headerEnd], as: UTF8.self)
            let contentStart = headerEnd + 4
            guard let end = find(separator, in: bytes, from: contentStart) else { throw Failure.malformed("a part without a closing boundary") }
            guard parts.count < maxParts else { throw Failure.tooManyParts(limit: maxParts) }
            guard let (name, filename) = disposition(headers) else { throw Failure.malformed("a part without a form-data name") }
            parts.append(Part(name: name, filename: filename, data: Data(bytes[contentStart..<end])))
            position = end + separator.count
        }
        return MultipartForm(parts: parts)
    }

    /// The name and file name of a part's `Content-Disposition: form-data` header.
    static func disposition(_ headers: String) -> (String, String?)? {
        for line in headers.components(separatedBy: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
            var name: String? = nil
            var filename: String? = nil
            for param in line.split(separator: ";").dropFirst() {
                let kv = param.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard kv.count == 2 else { continue }
                var value = kv[1]
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                switch kv[0].lowercased() {
                case "name": name = value
                case "filename":
                    // Browsers send a bare name; anything with a path keeps only its last part.
                    filename = value.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
                default: continue
                }
            }
            return name.map { ($0, filename) }
        }
        return nil
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        let first = needle[0]
        var i = start
        let last = haystack.count - needle.count
        while i <= last {
            if haystack[i] == first, haystack[i..<i + needle.count].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}
