import Foundation

/// The claims of an OpenID Connect id token this server issues (SMART App Launch 2 §
/// "Scopes for requesting identity data"): who issued it, for whom, for which app, and when.
public struct IDTokenClaims: Sendable, Hashable {
    /// `iss`: the server's base URL.
    public var issuer: String
    /// `sub`: a stable id of the person for this issuer.
    public var subject: String
    /// `aud`: the client id of the app.
    public var audience: String
    /// `exp`: when the token stops being valid (written as whole seconds).
    public var expiresAt: Date
    /// `iat`: when the token was issued (written as whole seconds).
    public var issuedAt: Date
    /// `fhirUser`: the absolute URL of the person's FHIR resource, e.g. `BASE/fhir/Patient/person-…`.
    public var fhirUser: String?
    /// `nonce`: the value the app sent at `/authorize`, when it sent one.
    public var nonce: String?

    /// Claims from their values.
    public init(issuer: String, subject: String, audience: String, expiresAt: Date, issuedAt: Date, fhirUser: String? = nil, nonce: String? = nil) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.fhirUser = fhirUser
        self.nonce = nonce
    }
}
