import FHIR
import Foundation
import HealthVocabulary
import Hummingbird

/// Why an app API request failed: a status, an OAuth2-style error code and, for argument
/// errors, a message. None of them says anything about the person's data: a denied type is an
/// empty answer, never an error.
public enum APIError: Error, Sendable, Equatable, HTTPResponseError {
    /// A parameter or body is malformed; the message names it.
    case invalidRequest(String)
    /// No bearer token, or one that is wrong or expired (401).
    case invalidToken
    /// `POST /token` with a wrong client id or secret (401).
    case invalidClient
    /// `POST /token` with a grant type other than `client_credentials`.
    case unsupportedGrantType
    /// Nothing at this address for this app (404).
    case notFound
    /// The request was taken already or is in another state (409); the message says which.
    case conflict(String)
    /// The body is larger than the server accepts (413).
    case bodyTooLarge(limit: Int)
    /// The app sent more requests than its rate allows (429).
    case rateLimited(retryAfterSeconds: Int)
    /// The request took longer than the server allows (503).
    case timedOut
    /// The store could not answer (500); details go to the log, not to the app.
    case unavailable

    /// The HTTP status sent with the error body; each case's doc names its code.
    public var status: HTTPResponse.Status {
        switch self {
        case .invalidRequest, .unsupportedGrantType: return .badRequest
        case .invalidToken, .invalidClient: return .unauthorized
        case .notFound: return .notFound
        case .conflict: return .conflict
        case .bodyTooLarge: return .contentTooLarge
        case .rateLimited: return .tooManyRequests
        case .timedOut: return .serviceUnavailable
        case .unavailable: return .internalServerError
        }
    }

    /// The `error` code in the body.
    public var code: String {
        switch self {
        case .invalidRequest: return "invalid_request"
        case .invalidToken: return "invalid_token"
        case .invalidClient: return "invalid_client"
        case .unsupportedGrantType: return "unsupported_grant_type"
        case .notFound: return "not_found"
        case .conflict: return "conflict"
        case .bodyTooLarge: return "body_too_large"
        case .rateLimited: return "rate_limited"
        case .timedOut: return "timeout"
        case .unavailable: return "server_error"
        }
    }

    /// The message in the body, when there is one.
    public var message: String? {
        switch self {
        case .invalidRequest(let m), .conflict(let m): return m
        case .bodyTooLarge(let limit): return "the body is larger than \(limit) bytes"
        default: return nil
        }
    }

    /// The error's response: `{"error", "message"?}`, or under `/fhir` an OperationOutcome
    /// (FHIR clients read every error as one), with the same status and headers.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response: Response
        if request.uri.path == "/fhir" || request.uri.path.hasPrefix("/fhir/") {
            response = FHIRResponse.outcome(status: status, code: OperationOutcome.code(for: self), diagnostics: message)
        } else {
            var members: [(String, EncodedJSON)] = [("error", .string(code))]
            if let message { members.append(("message", .string(message))) }
            response = JSONResponse.make(.object(members), status: status)
        }
        switch self {
        case .invalidToken: response.headers[.wwwAuthenticate] = #"Bearer realm="healthrecords", error="invalid_token""#
        case .invalidClient: response.headers[.wwwAuthenticate] = #"Basic realm="healthrecords""#
        case .rateLimited(let s): response.headers[.retryAfter] = String(s)
        default: break
        }
        return response
    }
}

/// JSON responses: `application/json`, never cached (they carry health data).
enum JSONResponse {
    static func make(_ json: EncodedJSON, status: HTTPResponse.Status = .ok) -> Response {
        let bytes = json.bytes
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
