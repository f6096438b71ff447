import ClinicalRecords
import FHIR
import Foundation
import HealthServer
import HealthStoreCore
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /fhir/metadata` and the SMART discovery document: public, and shaped as clients read them.
@Suite struct FHIRDiscoveryTests {
    @Test func theCapabilityStatementListsTypesParametersAndTheSMARTEndpoints() async throws {
        let w = try await ServerWorld(.sqlite)
        try await w.test(.live) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            let r = try await client.fhir("/fhir/metadata", token: nil)
            #expect(r.status == .ok && r.headers[.contentType] == "application/fhir+json")
            let c = r.json
            #expect(c["resourceType"] as? String == "CapabilityStatement" && c["fhirVersion"] as? String == "4.0.1")
            #expect(c["status"] as? String == "active" && c["kind"] as? String == "instance" && c["date"] is String)
            #expect((c["format"] as? [String])?.contains("json") == true)
            #expect((c["implementation"] as? [String: Any])?["url"] as? String == "\(base)/fhir")
            let rest = try #require((c["rest"] as? [[String: Any]])?.first)
            #expect(rest["mode"] as? String == "server")
            let security = try #require(rest["security"] as? [String: Any])
            let coding = ((security["service"] as? [[String: Any]])?.first?["coding"] as? [[String: Any]])?.first
            #expect(coding?["system"] as? String == "http://terminology.hl7.org/CodeSystem/restful-security-service" && coding?["code"] as? String == "SMART-on-FHIR")
            let oauth = try #require((security["extension"] as? [[String: Any]])?.first)
            #expect(oauth["url"] as? String == "http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris")
            var uris: [String: String] = [:]
            for e in oauth["extension"] as? [[String: Any]] ?? [] { uris[e["url"] as! String] = e["valueUri"] as? String }
            #expect(uris == ["authorize": "\(base)/authorize", "token": "\(base)/token", "revoke": "\(base)/revoke", "introspect": "\(base)/introspect"])
            let resources = rest["resource"] as? [[String: Any]] ?? []
            func parameters(_ type: String) -> Set<String> {
                Set((resources.first { $0["type"] as? String == type }?["searchParam"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
            }
            #expect(parameters("Observation").isSuperset(of: ["patient", "category", "code", "date", "_id", "_lastUpdated"]))
            #expect(parameters("Condition").isSuperset(of: ["patient", "category", "code", "clinical-status", "onset-date"]))
            #expect(parameters("MedicationRequest").isSuperset(of: ["patient", "intent", "status", "authoredon"]))
            #expect(parameters("Patient").isSuperset(of: ["_id", "identifier", "name", "birthdate", "gender"]))
            #expect(!resources.contains { $0["type"] as? String == "MedicationOrder" })
            let patient = resources.first { $0["type"] as? String == "Patient" }
            #expect((patient?["operation"] as? [[String: Any]])?.first?["name"] as? String == "everything")
            for type in ["AllergyIntolerance", "Immunization", "Procedure", "DiagnosticReport", "DocumentReference", "Encounter", "Coverage"] {
                let entry = resources.first { $0["type"] as? String == type }
                #expect((entry?["interaction"] as? [[String: Any]])?.compactMap { $0["code"] as? String } == ["read", "vread", "history-instance", "search-type"], "\(type)")
            }
        }
    }

    @Test func theSMARTConfigurationIsServedAtBothAddresses() async throws {
        let w = try await ServerWorld(.sqlite)
        try await w.test(.live) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            let a = try await client.call(.get, "/fhir/.well-known/smart-configuration")
            let b = try await client.call(.get, "/.well-known/smart-configuration")
            #expect(a.status == .ok && b.status == .ok && a.text == b.text)
            #expect(a.headers[.contentType]?.hasPrefix("application/json") == true)
            let s = try a.object()
            #expect(s["issuer"] as? String == base && s["jwks_uri"] as? String == "\(base)/.well-known/jwks.json")
            #expect(s["authorization_endpoint"] as? String == "\(base)/authorize" && s["token_endpoint"] as? String == "\(base)/token")
            #expect(s["revocation_endpoint"] as? String == "\(base)/revoke" && s["introspection_endpoint"] as? String == "\(base)/introspect")
            #expect(s["management_endpoint"] as? String == "\(base)/apps")
            #expect(s["grant_types_supported"] as? [String] == ["authorization_code", "refresh_token"])
            #expect(s["response_types_supported"] as? [String] == ["code"])
            #expect(s["code_challenge_methods_supported"] as? [String] == ["S256"])
            #expect(s["token_endpoint_auth_methods_supported"] as? [String] == ["client_secret_basic", "private_key_jwt"])
            #expect(s["token_endpoint_auth_signing_alg_values_supported"] as? [String] == ["ES384", "RS384"])
            let scopes = Set(s["scopes_supported"] as? [String] ?? [])
            #expect(scopes.isSuperset(of: ["openid", "fhirUser", "launch/patient", "offline_access", "online_access", "patient/*.read", "patient/*.rs", "patient/Observation.rs"]))
            #expect(Set(s["capabilities"] as? [String] ?? []) == [
                "launch-standalone", "client-public", "client-confidential-symmetric", "client-confidential-asymmetric", "context-standalone-patient",
                "permission-patient", "permission-offline", "permission-v1", "permission-v2", "sso-openid-connect",
            ])
        }
    }
}
