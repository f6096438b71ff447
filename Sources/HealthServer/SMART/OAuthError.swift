import HealthVocabulary
import Hummingbird

/// An error of the SMART authorization server's JSON endpoints (`/token`, `/revoke`,
/// `/introspect`), in RFC 6749 §5.2's shape: `{"error", "error_description"}`, never cached.
/// Descriptions name what was wrong with the request, never anything about the person's data.
enum OAuthError: Error, Sendable, Equatable, HTTPResponseError {
    /// A parameter is missing, repeated or malformed.
    case invalidRequest(String)
    /// The client could not be authenticated (401).
    case invalidClient(String)
    /// The code or refresh token is unknown, spent, expired, another client's, or does not
    /// match the redirect URI or PKCE verifier.
    case invalidGrant(String)
    /// The scope asked for is malformed or wider than what was granted.
    case invalidScope(String)
    /// The client may not use this grant type.
    case unauthorizedClient(String)
    /// A grant type the server does not know.
    case unsupportedGrantType(String)
    /// Too many failures from this address or client (429).
    case slowDown(retryAfterSeconds: Int)
    /// The store could not answer (500).
    case serverError

    var status: HTTPResponse.Status {
        switch self {
        case .invalidClient: return .unauthorized
        case .slowDown: return .tooManyRequests
        case .serverError: return .internalServerError
        default: return .badRequest
        }
    }

    var code: String {
        switch self {
        case .invalidRequest: return "invalid_request"
        case .invalidClient: return "invalid_client"
        case .invalidGrant: return "invalid_grant"
        case .invalidScope: return "invalid_scope"
        case .unauthorizedClient: return "unauthorized_client"
        case .unsupportedGrantType: return "unsupported_grant_type"
        case .slowDown: return "slow_down"
        case .serverError: return "server_error"
        }
    }

    var description: String? {
        switch self {
        case .invalidRequest(let m), .invalidClient(let m), .invalidGrant(let m), .invalidScope(let m), .unauthorizedClient(let m),
            .unsupportedGrantType(let m):
            return m
        case .slowDown(let s): return "too many failed attempts; retry after \(s) seconds"
        case .serverError: return nil
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var members: [(String, EncodedJSON)] = [("error", .string(code))]
        if let description { members.append(("error_description", .string(description))) }
        var response = JSONResponse.make(.object(members), status: status)
        response.headers[HeaderName.pragma] = "no-cache"
        switch self {
        case .invalidClient: response.headers[.wwwAuthenticate] = #"Basic realm="healthrecords""#
        case .slowDown(let s): response.headers[.retryAfter] = String(s)
        default: break
        }
        return response
    }
}
