import FHIR
import Foundation

/// Endpoints a server advertises (SMART App Launch 2 §Conformance; older servers: the
/// CapabilityStatement's oauth-uris extension).
///
/// A client needs this before anything else: where to send the user, where to trade the code,
/// and whether PKCE, asymmetric client authentication or a brands bundle are on offer. Lists a
/// server leaves out read as empty rather than failing, since many real servers publish only
/// part of the document; only `token_endpoint` is indispensable.
public struct SMARTConfiguration: Sendable, Hashable {
    /// Where the user signs in (`authorization_endpoint`); nil for backend-only servers.
    public var authorizationEndpoint: URL?
    /// Where codes and client credentials become tokens (`token_endpoint`).
    public var tokenEndpoint: URL
    /// Where a token can be revoked when a connection is removed (`revocation_endpoint`).
    public var revocationEndpoint: URL?
    /// SMART capabilities (`launch-standalone`, `client-confidential-asymmetric`, …).
    public var capabilities: [String]
    /// PKCE methods (`code_challenge_methods_supported`).
    public var codeChallengeMethods: [String]
    /// Client authentication methods (`token_endpoint_auth_methods_supported`).
    public var tokenEndpointAuthMethods: [String]
    /// Grant types (`grant_types_supported`): `authorization_code`, `client_credentials`.
    public var grantTypes: [String]
    /// Scopes the server says it supports (`scopes_supported`); not exhaustive.
    public var scopesSupported: [String]
    /// The User-access Brands bundle (`user_access_brand_bundle`), for naming the provider.
    public var userAccessBrandBundle: URL?

    /// The extension on `CapabilityStatement.rest.security` that carries the OAuth URLs.
    public static let oauthURIsExtension = "http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris"
    /// The SMART 1 extension on `CapabilityStatement.rest.security` listing capabilities.
    public static let capabilitiesExtension = "http://fhir-registry.smarthealthit.org/StructureDefinition/capabilities"

    /// A configuration from its parts, for servers known without discovery and for tests.
    public init(
        authorizationEndpoint: URL?, tokenEndpoint: URL, revocationEndpoint: URL? = nil, capabilities: [String] = [],
        codeChallengeMethods: [String] = [], tokenEndpointAuthMethods: [String] = [], grantTypes: [String] = [],
        scopesSupported: [String] = [], userAccessBrandBundle: URL? = nil
    ) {
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.capabilities = capabilities
        self.codeChallengeMethods = codeChallengeMethods
        self.tokenEndpointAuthMethods = tokenEndpointAuthMethods
        self.grantTypes = grantTypes
        self.scopesSupported = scopesSupported
        self.userAccessBrandBundle = userAccessBrandBundle
    }

    /// Reads `.well-known/smart-configuration` JSON. Relative URLs resolve against `base`.
    ///
    /// Resolution is RFC 3986's, against `base` exactly as given (so pass the FHIR base with a
    /// trailing `/` if relative paths are meant to sit under it). Every URL must come out as
    /// http or https with a host: anything else (`javascript:`, `file:`) is refused, since the
    /// user's browser and this client's secrets will be sent there.
    public init(wellKnown data: Data, base: URL) throws(SMARTClientError) {
        let object = try ClientJSON.object(data)
        guard let token = try ClientJSON.string(object, "token_endpoint") else { throw .missingMember("token_endpoint") }
        tokenEndpoint = try ClientJSON.url(token, member: "token_endpoint", base: base)
        authorizationEndpoint = try Self.optionalURL(object, "authorization_endpoint", base: base)
        revocationEndpoint = try Self.optionalURL(object, "revocation_endpoint", base: base)
        userAccessBrandBundle = try Self.optionalURL(object, "user_access_brand_bundle", base: base)
        capabilities = try ClientJSON.strings(object, "capabilities")
        codeChallengeMethods = try ClientJSON.strings(object, "code_challenge_methods_supported")
        tokenEndpointAuthMethods = try ClientJSON.strings(object, "token_endpoint_auth_methods_supported")
        grantTypes = try ClientJSON.strings(object, "grant_types_supported")
        scopesSupported = try ClientJSON.strings(object, "scopes_supported")
    }

    /// Reads a CapabilityStatement (R4 or DSTU2 Conformance) and its
    /// http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris extension
    /// (authorize, token, revoke). Throws .noOAuthEndpoints when absent.
    ///
    /// For servers that predate `.well-known/smart-configuration`. The first `rest` entry whose
    /// `security` has the extension is used; SMART 1's `capabilities` extension (one `valueCode`
    /// each) fills ``capabilities``. Such servers list no PKCE methods, so
    /// ``codeChallengeMethods`` is empty and ``offersS256`` is true.
    public init(capabilityStatement data: Data, base: URL) throws(SMARTClientError) {
        let object = try ClientJSON.object(data, limits: .default)
        let resourceType = try ClientJSON.string(object, "resourceType")
        guard resourceType == "CapabilityStatement" || resourceType == "Conformance" else {
            throw .missingMember("resourceType CapabilityStatement or Conformance (found \(resourceType.map { $0.debugDescription } ?? "none"))")
        }
        var found: (oauth: JSONObject, security: JSONObject)?
        for rest in object["rest"]?.arrayValue ?? [] {
            guard let security = rest["security"]?.objectValue else { continue }
            if let oauth = Self.extensions(security).first(where: { $0["url"]?.stringValue == Self.oauthURIsExtension }) {
                found = (oauth, security)
                break
            }
        }
        guard let found else { throw .noOAuthEndpoints }
        var uris: [String: String] = [:]
        for part in Self.extensions(found.oauth) {
            guard let name = part["url"]?.stringValue, uris[name] == nil else { continue }
            if let value = part["valueUri"]?.stringValue ?? part["valueUrl"]?.stringValue { uris[name] = value }
        }
        guard let token = uris["token"] else { throw .missingMember("token (in the oauth-uris extension)") }
        tokenEndpoint = try ClientJSON.url(token, member: "token", base: base)
        authorizationEndpoint = try Self.optionalURL(uris["authorize"], "authorize", base: base)
        revocationEndpoint = try Self.optionalURL(uris["revoke"], "revoke", base: base)
        capabilities = Self.extensions(found.security)
            .filter { $0["url"]?.stringValue == Self.capabilitiesExtension }
            .compactMap { $0["valueCode"]?.stringValue }
        codeChallengeMethods = []
        tokenEndpointAuthMethods = []
        grantTypes = []
        scopesSupported = []
        userAccessBrandBundle = nil
    }

    /// Whether PKCE S256 is offered: ``codeChallengeMethods`` contains `S256`, or is empty
    /// (unknown, so S256 is sent anyway).
    ///
    /// Sending a challenge to a server that ignores PKCE costs nothing, and leaving it out where
    /// it is required fails the sign-in, so silence counts as yes. A list without S256 (only
    /// `plain`, which SMART forbids) is a no: the caller should refuse rather than downgrade.
    public var offersS256: Bool {
        codeChallengeMethods.isEmpty || codeChallengeMethods.contains("S256")
    }

    private static func optionalURL(_ object: JSONObject, _ member: String, base: URL) throws(SMARTClientError) -> URL? {
        try optionalURL(ClientJSON.string(object, member), member, base: base)
    }

    private static func optionalURL(_ text: String?, _ member: String, base: URL) throws(SMARTClientError) -> URL? {
        guard let text else { return nil }
        return try ClientJSON.url(text, member: member, base: base)
    }

    /// The `extension` array of an element, objects only.
    private static func extensions(_ element: JSONObject) -> [JSONObject] {
        (element["extension"]?.arrayValue ?? []).compactMap(\.objectValue)
    }
}
