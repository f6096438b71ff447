/// Why a SMART client step failed: each case carries what a person needs to fix the server's
/// configuration, the callback, the token answer, the client key or the brands file, without
/// a debugger.
public enum SMARTClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A document that must be JSON is not: the reader's message.
    case notJSON(String)
    /// A member the document needs is absent or of the wrong JSON type (e.g. `token_endpoint`).
    case missingMember(String)
    /// A member that must be an http or https URL is not one: its name and its text.
    case invalidURL(member: String, value: String)
    /// A CapabilityStatement (or DSTU2 Conformance) has no SMART `oauth-uris` extension, so the
    /// server does not say where to authorize.
    case noOAuthEndpoints
    /// A callback's `state` is missing, repeated or not the one this client sent: it may be a
    /// forged callback (CSRF), so its code must not be exchanged.
    case stateMismatch
    /// A callback has the right `state` but neither a single `code` nor an `error`.
    case missingCode
    /// A token endpoint's 200 answer lacks what RFC 6749 §5.1 requires, or has a member of the
    /// wrong type: what is wrong.
    case malformedTokenResponse(String)
    /// The token is not a bearer token (the only kind a FHIR server accepts): the `token_type` given.
    case unsupportedTokenType(String)
    /// A client key file cannot be read as a JWK, a JWKS or a PEM private key: why.
    case unreadableKey(String)
    /// A client key was read but cannot sign ES384 or RS384 client assertions (a P-256 key, an
    /// RSA key under 2048 bits, a public key only…): what it is.
    case unsupportedKey(String)
    /// A User-access Brands bundle holds no Organization with a name and a usable endpoint.
    case noBrands
    /// A User-access Brands file is not a FHIR Bundle of entries: what is wrong.
    case malformedBrands(String)

    public var description: String {
        switch self {
        case .notJSON(let m): return "not JSON: \(m)"
        case .missingMember(let m): return "the document has no \(m)"
        case .invalidURL(let member, let value): return "\(member) is not an http or https URL: \(value.debugDescription)"
        case .noOAuthEndpoints:
            return "the CapabilityStatement has no http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris extension"
        case .stateMismatch: return "the callback's state is missing or not the one sent; the sign-in was not started here"
        case .missingCode: return "the callback has neither a single code nor an error"
        case .malformedTokenResponse(let m): return "the token response is malformed: \(m)"
        case .unsupportedTokenType(let t): return "token_type \(t.debugDescription) is not Bearer"
        case .unreadableKey(let m): return "the client key cannot be read: \(m)"
        case .unsupportedKey(let m): return "the client key cannot sign ES384 or RS384 assertions: \(m)"
        case .noBrands: return "the brands bundle has no organization with a name and a usable FHIR endpoint"
        case .malformedBrands(let m): return "the brands bundle is malformed: \(m)"
        }
    }
}
