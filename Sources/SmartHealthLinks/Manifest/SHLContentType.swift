/// The content types a manifest's files (and a JWE's `cty`) may have, as the spec fixes them.
///
/// Kept as strings: a receiver skips a file of a type it does not know rather than refusing the
/// whole manifest.
public enum SHLContentType {
    /// `application/smart-health-card`: `{"verifiableCredential": [JWS…]}`; verify each card.
    public static let smartHealthCard = "application/smart-health-card"
    /// `application/fhir+json`: any FHIR resource, a Bundle included.
    public static let fhirJSON = "application/fhir+json"
    /// `application/smart-api-access`: a SMART access token response with `aud`, the FHIR base
    /// the token is for (and optionally `query`, hints of searches to make).
    public static let smartAPIAccess = "application/smart-api-access"

    /// The three types the spec defines.
    public static let known: Set<String> = [smartHealthCard, fhirJSON, smartAPIAccess]

    /// The media type of a JWE served from a `location` or a `U` link: `application/jose`.
    public static let jose = "application/jose"
}
