/// The addresses of the SMART authorization server and the FHIR base, from the server's
/// public base URL. The FHIR base is the `aud` apps must name at `/authorize`.
struct SMARTEndpoints: Sendable {
    /// The server's base URL without a trailing slash (``ServerAddress/baseURL``).
    let base: String

    var fhirBase: String { base + "/fhir" }
    var authorize: String { base + "/authorize" }
    var token: String { base + "/token" }
    var revoke: String { base + "/revoke" }
    var introspect: String { base + "/introspect" }
    var jwks: String { base + "/.well-known/jwks.json" }
    var management: String { base + "/apps" }
    var registration: String { base + "/apps/register" }
    /// The `iss` of id tokens.
    var issuer: String { base }

    /// Whether an `aud` names this server's FHIR base (a trailing slash is tolerated).
    func isAudience(_ aud: String) -> Bool {
        aud == fhirBase || aud == fhirBase + "/"
    }
}
