import Foundation

/// An OAuth error answer (`{"error": "invalid_grant", "error_description": …}`).
///
/// Read from any non-200 token endpoint answer so the user sees the server's own reason
/// (`invalid_grant` after a revoked refresh token means "sign in again", not "retry").
public struct OAuthErrorResponse: Sendable, Hashable {
    /// The RFC 6749 §5.2 error code (`invalid_grant`, `invalid_client`, …).
    public var error: String
    /// The server's human-readable explanation, when given.
    public var description: String?

    /// An error answer from its parts.
    public init(error: String, description: String? = nil) {
        self.error = error
        self.description = description
    }

    /// nil when the body is not such a JSON object.
    ///
    /// "Such an object" has a non-empty string `error`; an `error_description` that is not a
    /// string is ignored rather than losing the code.
    public init?(data: Data) {
        guard let object = try? ClientJSON.object(data), let error = object["error"]?.stringValue, !error.isEmpty else { return nil }
        self.error = error
        self.description = object["error_description"]?.stringValue
    }
}
