import Foundation
import SMARTAuthorization
import Testing

@Suite struct ClientConfigurationTests {
    let base = URL(string: "https://ehr.example.com/fhir/")!

    @Test func readsTheSpecSampleResponse() throws {
        let configuration = try SMARTConfiguration(wellKnown: ClientTest.data(ClientSpecExamples.smartConfiguration), base: base)
        #expect(configuration.authorizationEndpoint == URL(string: "https://ehr.example.com/auth/authorize"))
        #expect(configuration.tokenEndpoint == URL(string: "https://ehr.example.com/auth/token"))
        #expect(configuration.revocationEndpoint == URL(string: "https://ehr.example.com/user/revoke"))
        #expect(configuration.tokenEndpointAuthMethods == ["client_secret_basic", "private_key_jwt"])
        #expect(configuration.grantTypes == ["authorization_code", "client_credentials"])
        #expect(configuration.scopesSupported == ["openid", "profile", "launch", "launch/patient", "patient/*.rs", "user/*.rs", "offline_access"])
        #expect(configuration.codeChallengeMethods == ["S256"])
        #expect(configuration.capabilities.count == 7 && configuration.capabilities.contains("sso-openid-connect"))
        #expect(configuration.userAccessBrandBundle == nil)
        #expect(configuration.offersS256)
    }

    /// The walk-through's discovery document has a typo (no comma after `"patient/*.cruds"`): a
    /// strict reader refuses it as it stands, and reads it once the comma is put back.
    @Test func readsThePublicAppWalkThroughsDiscovery() throws {
        let verbatim = ClientSpecExamples.publicAppConfiguration
        guard case .notJSON(let message)? = ClientTest.error({ () throws(SMARTClientError) in
            try SMARTConfiguration(wellKnown: ClientTest.data(verbatim), base: base)
        }) else {
            Issue.record("the spec's malformed sample should not read")
            return
        }
        #expect(message.contains("unexpected"))
        let fixed = verbatim.replacingOccurrences(of: "\"patient/*.cruds\"\n", with: "\"patient/*.cruds\",\n")
        #expect(fixed != verbatim)
        let configuration = try SMARTConfiguration(wellKnown: ClientTest.data(fixed), base: base)
        #expect(configuration.authorizationEndpoint?.path.hasSuffix("/auth/authorize") == true)
        #expect(configuration.tokenEndpoint.host == "smart.argo.run" && configuration.tokenEndpoint.path.hasSuffix("/auth/token"))
        #expect(configuration.capabilities.contains("client-confidential-asymmetric"))
        #expect(configuration.scopesSupported.contains("patient/*.cruds") && configuration.scopesSupported.contains("user/*.cruds"))
        #expect(configuration.offersS256)
    }

    @Test func resolvesRelativeURLsAgainstTheBase() throws {
        let json = #"""
        {"token_endpoint":"auth/token","authorization_endpoint":"/authorize","revocation_endpoint":"//other.example.com/revoke",
         "user_access_brand_bundle":"brands.json","capabilities":["launch-standalone"]}
        """#
        let configuration = try SMARTConfiguration(wellKnown: ClientTest.data(json), base: base)
        #expect(configuration.tokenEndpoint.absoluteString == "https://ehr.example.com/fhir/auth/token")
        #expect(configuration.authorizationEndpoint?.absoluteString == "https://ehr.example.com/authorize")
        #expect(configuration.revocationEndpoint?.absoluteString == "https://other.example.com/revoke")
        #expect(configuration.userAccessBrandBundle?.absoluteString == "https://ehr.example.com/fhir/brands.json")
        // A server that lists nothing else: every list is empty and S256 is still sent.
        #expect(configuration.codeChallengeMethods.isEmpty && configuration.grantTypes.isEmpty && configuration.offersS256)
    }

    @Test func backendOnlyServerHasNoAuthorizationEndpoint() throws {
        let json = #"{"token_endpoint":"https://auth.example.com/token","grant_types_supported":["client_credentials"],"token_endpoint_auth_methods_supported":["private_key_jwt"]}"#
        let configuration = try SMARTConfiguration(wellKnown: ClientTest.data(json), base: base)
        #expect(configuration.authorizationEndpoint == nil)
        #expect(configuration.grantTypes == ["client_credentials"])
    }

    @Test func offersS256OnlyWhenListedOrUnknown() {
        let token = URL(string: "https://a.example/token")!
        #expect(SMARTConfiguration(authorizationEndpoint: nil, tokenEndpoint: token).offersS256)
        #expect(SMARTConfiguration(authorizationEndpoint: nil, tokenEndpoint: token, codeChallengeMethods: ["S256", "plain"]).offersS256)
        #expect(!SMARTConfiguration(authorizationEndpoint: nil, tokenEndpoint: token, codeChallengeMethods: ["plain"]).offersS256)
    }

    @Test func wellKnownErrorsAreTyped() {
        func read(_ json: String) throws(SMARTClientError) -> SMARTConfiguration {
            try SMARTConfiguration(wellKnown: ClientTest.data(json), base: base)
        }
        #expect(throws: SMARTClientError.missingMember("token_endpoint")) { try read(#"{"authorization_endpoint":"https://a.example/auth"}"#) }
        #expect(throws: SMARTClientError.missingMember("token_endpoint (a string)")) { try read(#"{"token_endpoint":42}"#) }
        #expect(throws: SMARTClientError.invalidURL(member: "authorization_endpoint", value: "javascript:alert(1)")) {
            try read(#"{"token_endpoint":"https://a.example/token","authorization_endpoint":"javascript:alert(1)"}"#)
        }
        #expect(throws: SMARTClientError.invalidURL(member: "token_endpoint", value: "file:///etc/passwd")) { try read(#"{"token_endpoint":"file:///etc/passwd"}"#) }
        #expect(throws: SMARTClientError.invalidURL(member: "token_endpoint", value: "")) { try read(#"{"token_endpoint":""}"#) }
        #expect(throws: SMARTClientError.missingMember("capabilities (an array of strings)")) {
            try read(#"{"token_endpoint":"https://a.example/token","capabilities":"launch-standalone"}"#)
        }
        #expect(throws: SMARTClientError.missingMember("scopes_supported (an array of strings)")) {
            try read(#"{"token_endpoint":"https://a.example/token","scopes_supported":["openid",1]}"#)
        }
        #expect(throws: SMARTClientError.notJSON("the document is not a JSON object")) { try read(#"["token_endpoint"]"#) }
        guard case .notJSON? = ClientTest.error({ () throws(SMARTClientError) in try read("<html>Not found</html>") }) else {
            Issue.record("an HTML page is not JSON")
            return
        }
    }

    static let r4CapabilityStatement = #"""
    {
      "resourceType": "CapabilityStatement",
      "status": "active",
      "date": "2024-01-01",
      "kind": "instance",
      "fhirVersion": "4.0.1",
      "format": ["json"],
      "rest": [{
        "mode": "server",
        "security": {
          "cors": true,
          "service": [{"coding": [{"system": "http://terminology.hl7.org/CodeSystem/restful-security-service", "code": "SMART-on-FHIR"}]}],
          "extension": [
            {
              "url": "http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris",
              "extension": [
                {"url": "token", "valueUri": "https://launch.example.org/auth/token"},
                {"url": "authorize", "valueUri": "https://launch.example.org/auth/authorize"},
                {"url": "introspect", "valueUri": "https://launch.example.org/auth/introspect"},
                {"url": "revoke", "valueUri": "/auth/revoke"}
              ]
            },
            {"url": "http://fhir-registry.smarthealthit.org/StructureDefinition/capabilities", "valueCode": "launch-standalone"},
            {"url": "http://fhir-registry.smarthealthit.org/StructureDefinition/capabilities", "valueCode": "client-public"}
          ]
        }
      }]
    }
    """#

    @Test func readsAnR4CapabilityStatementsOAuthURIs() throws {
        let configuration = try SMARTConfiguration(capabilityStatement: ClientTest.data(Self.r4CapabilityStatement), base: base)
        #expect(configuration.authorizationEndpoint == URL(string: "https://launch.example.org/auth/authorize"))
        #expect(configuration.tokenEndpoint == URL(string: "https://launch.example.org/auth/token"))
        #expect(configuration.revocationEndpoint?.absoluteString == "https://ehr.example.com/auth/revoke")
        #expect(configuration.capabilities == ["launch-standalone", "client-public"])
        #expect(configuration.codeChallengeMethods.isEmpty && configuration.offersS256)
    }

    @Test func readsADSTU2Conformance() throws {
        let json = #"""
        {"resourceType":"Conformance","fhirVersion":"1.0.2","rest":[{"mode":"server"},{"mode":"server","security":{"extension":[
          {"url":"http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris","extension":[
            {"url":"authorize","valueUri":"https://dstu2.example.org/oauth2/authorize"},
            {"url":"token","valueUri":"https://dstu2.example.org/oauth2/token"}]}]}}]}
        """#
        let configuration = try SMARTConfiguration(capabilityStatement: ClientTest.data(json), base: base)
        #expect(configuration.authorizationEndpoint?.absoluteString == "https://dstu2.example.org/oauth2/authorize")
        #expect(configuration.tokenEndpoint.absoluteString == "https://dstu2.example.org/oauth2/token")
        #expect(configuration.revocationEndpoint == nil && configuration.capabilities.isEmpty)
    }

    @Test func capabilityStatementErrorsAreTyped() {
        func read(_ json: String) throws(SMARTClientError) -> SMARTConfiguration {
            try SMARTConfiguration(capabilityStatement: ClientTest.data(json), base: base)
        }
        #expect(throws: SMARTClientError.noOAuthEndpoints) { try read(#"{"resourceType":"CapabilityStatement","rest":[{"mode":"server","security":{"cors":true}}]}"#) }
        #expect(throws: SMARTClientError.noOAuthEndpoints) { try read(#"{"resourceType":"CapabilityStatement","status":"active"}"#) }
        #expect(throws: SMARTClientError.missingMember("token (in the oauth-uris extension)")) {
            try read(#"{"resourceType":"CapabilityStatement","rest":[{"security":{"extension":[{"url":"http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris","extension":[{"url":"authorize","valueUri":"https://a.example/authorize"}]}]}}]}"#)
        }
        #expect(throws: SMARTClientError.invalidURL(member: "authorize", value: "data:text/html,hi")) {
            try read(#"{"resourceType":"CapabilityStatement","rest":[{"security":{"extension":[{"url":"http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris","extension":[{"url":"authorize","valueUri":"data:text/html,hi"},{"url":"token","valueUri":"https://a.example/token"}]}]}}]}"#)
        }
        #expect(throws: SMARTClientError.missingMember(#"resourceType CapabilityStatement or Conformance (found "OperationOutcome")"#)) {
            try read(#"{"resourceType":"OperationOutcome","issue":[]}"#)
        }
    }
}
