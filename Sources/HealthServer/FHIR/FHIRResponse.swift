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
