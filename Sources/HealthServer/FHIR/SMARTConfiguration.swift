import HealthVocabulary

/// The SMART App Launch discovery document (`/.well-known/smart-configuration`, under the FHIR
/// base and at the server's root): the endpoints, what the authorization server accepts, and
/// the capabilities it has.
enum SMARTConfiguration {
    static func make(serverBase: String) -> EncodedJSON {
        let scopes = ["openid", "fhirUser", "launch/patient", "offline_access", "online_access", "patient/*.read", "patient/*.rs"]
            + FHIRResourceTypes.served.flatMap { ["patient/\($0).read", "patient/\($0).rs"] }
        let capabilities = [
            "launch-standalone", "client-public", "client-confidential-symmetric", "client-confidential-asymmetric", "context-standalone-patient",
            "permission-patient", "permission-offline", "permission-v1", "permission-v2", "sso-openid-connect",
        ]
        func strings(_ list: [String]) -> EncodedJSON { .array(list.map { .string($0) }) }
        return .object([
            ("issuer", .string(serverBase)),
            ("jwks_uri", .string(serverBase + "/.well-known/jwks.json")),
            ("authorization_endpoint", .string(serverBase + "/authorize")),
            ("token_endpoint", .string(serverBase + "/token")),
            ("revocation_endpoint", .string(serverBase + "/revoke")),
            ("introspection_endpoint", .string(serverBase + "/introspect")),
            ("management_endpoint", .string(serverBase + "/apps")),
            ("grant_types_supported", strings(["authorization_code", "refresh_token"])),
            ("response_types_supported", strings(["code"])),
            ("code_challenge_methods_supported", strings(["S256"])),
            ("token_endpoint_auth_methods_supported", strings(["client_secret_basic", "private_key_jwt"])),
            ("token_endpoint_auth_signing_alg_values_supported", strings(["ES384", "RS384"])),
            ("scopes_supported", strings(scopes)),
            ("capabilities", strings(capabilities)),
        ])
    }
}
