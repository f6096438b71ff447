import FHIR
import Foundation
import HealthVocabulary
import Hummingbird

/// FHIR responses: `application/fhir+json`, never cached (they carry health data).
enum FHIRResponse {
    /// The media type of every FHIR body.
    static let mediaType = "application/fhir+json"

    /// A response with JSON bytes as its body.
    static func make(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = mediaType
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A read's answer: the resource with `ETag: W/"versionId"` and `Last-Modified`, or `304 Not
    /// Modified` (no body) when `If-None-Match` names that version or is `*`.
    static func read(_ served: FHIRService.ServedRead, ifNoneMatch: String?) -> Response {
        let etag = "W/\"" + served.versionId + "\""
        var response: Response
        if let ifNoneMatch, Self.matches(ifNoneMatch, versionId: served.versionId) {
            var headers = HTTPFields()
            headers[.cacheControl] = "no-store"
            response = Response(status: .notModified, headers: headers)
        } else {
            response = make(Array(served.bytes))
        }
        response.headers[.eTag] = etag
        response.headers[.lastModified] = HTTPDate.string(served.lastUpdated)
        return response
    }

    /// Whether an `If-None-Match` list names a version (weakly: `W/"3"` and `"3"` alike) or is `*`.
    static func matches(_ header: String, versionId: String) -> Bool {
        header.split(separator: ",").contains { tag in
            var t = tag.trimmingCharacters(in: .whitespaces)
            if t == "*" { return true }
            if t.hasPrefix("W/") { t.removeFirst(2) }
            return t == "\"" + versionId + "\""
        }
    }

    /// A response with a JSON value as its body.
    static func make(_ json: EncodedJSON, status: HTTPResponse.Status = .ok) -> Response { make(json.bytes, status: status) }

    /// An OperationOutcome with one error issue.
    static func outcome(status: HTTPResponse.Status, code: String, diagnostics: String?) -> Response {
        make(OperationOutcome.error(code: code, diagnostics: diagnostics), status: status)
    }
}

/// FHIR's OperationOutcome: how every FHIR error is answered.
enum OperationOutcome {
    /// An outcome with one issue of severity `error`, an IssueType code and, optionally, text.
    static func error(code: String, diagnostics: String?) -> EncodedJSON {
        var issue: [(String, EncodedJSON)] = [("severity", .string("error")), ("code", .string(code))]
        if let diagnostics { issue.append(("diagnostics", .string(diagnostics))) }
        return .object([("resourceType", .string("OperationOutcome")), ("issue", .array([.object(issue)]))])
    }

    /// The IssueType code that stands for an app API error.
    static func code(for error: APIError) -> String {
        switch error {
        case .invalidRequest, .unsupportedGrantType: return "invalid"
        case .invalidToken, .invalidClient: return "login"
        case .notFound: return "not-found"
        case .conflict: return "conflict"
        case .bodyTooLarge: return "too-costly"
        case .rateLimited: return "throttled"
        case .timedOut: return "timeout"
        case .unavailable: return "exception"
        }
    }
}
