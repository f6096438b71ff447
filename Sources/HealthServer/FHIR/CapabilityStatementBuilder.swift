import HealthVocabulary

/// The server's R4 CapabilityStatement (`GET /fhir/metadata`): the types served (read and
/// search), their search parameters, `Patient/$everything` and `$summary`, and SMART on FHIR security with
/// the `oauth-uris` extension clients such as `fhirclient` discover the endpoints from.
enum CapabilityStatementBuilder {
    /// The date of this statement's content (it changes when the served API does).
    static let date = "2026-11-24"

    private static func searchParam(_ p: SearchParameterDefinition) -> EncodedJSON {
        var m: [(String, EncodedJSON)] = [("name", .string(p.name))]
        if let d = p.definition { m.append(("definition", .string(d))) }
        m.append(("type", .string(p.type)))
        return .object(m)
    }

    /// The statement, with the endpoints under `serverBase`.
    static func make(serverBase: String) -> EncodedJSON {
        let fhirBase = serverBase + "/fhir"
        let oauth: [EncodedJSON] = [("authorize", "/authorize"), ("token", "/token"), ("revoke", "/revoke"), ("introspect", "/introspect")].map {
            .object([("url", .string($0.0)), ("valueUri", .string(serverBase + $0.1))])
        }
        let oauthURIs: EncodedJSON = .object([
            ("url", .string("http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris")), ("extension", .array(oauth)),
        ])
        let smartCoding: EncodedJSON = .object([
            ("system", .string("http://terminology.hl7.org/CodeSystem/restful-security-service")), ("code", .string("SMART-on-FHIR")),
            ("display", .string("SMART-on-FHIR")),
        ])
        let service: EncodedJSON = .object([
            ("coding", .array([smartCoding])), ("text", .string("OAuth2 using SMART-on-FHIR profile (see http://docs.smarthealthit.org)")),
        ])
        let security: EncodedJSON = .object([
            ("extension", .array([oauthURIs])),
            ("service", .array([service])),
            ("description", .string("SMART App Launch 2 (standalone patient launch); see \(fhirBase)/.well-known/smart-configuration")),
        ])
        let resources: [EncodedJSON] = FHIRResourceTypes.served.map { type in
            let parameters = FHIRResourceTypes.common + (FHIRResourceTypes.parameters[type] ?? [])
            var members: [(String, EncodedJSON)] = [
                ("type", .string(type)),
                ("interaction", .array(["read", "vread", "history-instance", "search-type"].map { .object([("code", .string($0))]) })),
                ("versioning", .string("versioned")),
                ("readHistory", .bool(true)),
                ("updateCreate", .bool(false)),
                ("searchParam", .array(parameters.map(Self.searchParam))),
            ]
            if type == "Patient" {
                members.append(
                    ("operation", .array([
                        .object([("name", .string("everything")), ("definition", .string("http://hl7.org/fhir/OperationDefinition/Patient-everything"))]),
                        .object([("name", .string("summary")), ("definition", .string("http://hl7.org/fhir/uv/ips/OperationDefinition/summary"))]),
                    ])))
            }
            return .object(members)
        }
        return .object([
            ("resourceType", .string("CapabilityStatement")),
            ("id", .string("healthrecords")),
            ("status", .string("active")),
            ("date", .string(date)),
            ("publisher", .string("HealthRecords")),
            ("kind", .string("instance")),
            ("software", .object([("name", .string("HealthRecords"))])),
            ("implementation", .object([("description", .string("The person's health records, read-only for apps")), ("url", .string(fhirBase))])),
            ("fhirVersion", .string("4.0.1")),
            ("format", .array([.string("json"), .string("application/fhir+json")])),
            ("rest", .array([.object([("mode", .string("server")), ("security", security), ("resource", .array(resources))])])),
        ])
    }
}
