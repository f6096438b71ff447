import Hummingbird

/// Why a FHIR request failed, answered as an OperationOutcome (``OperationOutcome``). None of
/// them tells a hidden resource from a missing one: a resource the app may not see is a 404
/// with the same body as one that does not exist.
///
/// Authentication, rate and server failures stay ``APIError``s; under `/fhir` they are
/// answered as OperationOutcomes too (``APIError/response(from:context:)``).
enum FHIRRequestError: Error, Sendable, Equatable, HTTPResponseError {
    /// A search parameter or its value cannot be used (400); names the parameter and the value.
    case invalidParameter(name: String, value: String, reason: String)
    /// A `_page` token that is malformed, altered, expired or made for another app (400).
    case invalidPageToken
    /// A request the server does not answer, e.g. a search across every type (400).
    case notSupported(String)
    /// A resource type the server does not serve (404).
    case unknownResourceType(String)
    /// No resource of the type with this id that the app may see (404).
    case notFound(resourceType: String, id: String)

    var status: HTTPResponse.Status {
        switch self {
        case .invalidParameter, .invalidPageToken, .notSupported: return .badRequest
        case .unknownResourceType, .notFound: return .notFound
        }
    }

    /// The OperationOutcome's issue code (FHIR's IssueType).
    var issueCode: String {
        switch self {
        case .invalidParameter, .invalidPageToken: return "invalid"
        case .notSupported: return "not-supported"
        case .unknownResourceType, .notFound: return "not-found"
        }
    }

    /// What the OperationOutcome says, for the app's developer.
    var diagnostics: String {
        switch self {
        case .invalidParameter(let name, let value, let reason): return "\(name): \"\(value)\" \(reason)"
        case .invalidPageToken: return "_page: the paging token is not valid for this app (start the search again)"
        case .notSupported(let what): return what
        case .unknownResourceType(let type): return "resource type \"\(type)\" is not served here"
        case .notFound(let type, let id): return "\(type)/\(id) is not known"
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        FHIRResponse.outcome(status: status, code: issueCode, diagnostics: diagnostics)
    }
}
