import Foundation
import SMARTAuthorization
import Testing

@Suite struct ClientBrandsTests {
    func read(_ json: String) throws(SMARTClientError) -> [UserAccessBrand] {
        try UserAccessBrand.read(bundle: ClientTest.data(json))
    }

    @Test func specExample1ALabWithOnePortal() throws {
        let brands = try read(ClientSpecExamples.brandsExample1)
        #expect(brands.count == 1)
        let labs = try #require(brands.first)
        #expect(labs.organizationID == "examplelabs" && labs.name == "ExampleLabs")
        #expect(labs.aliases == ["ExampleLabs Alaska", "...(more here)...", "ExampleLabs Wisconsin"])
        #expect(labs.website == URL(string: "https://labs.example.com"))
        #expect(labs.logo?.scheme == "data")
        #expect(labs.endpoints == [UserAccessBrand.Endpoint(
            id: "examplelabs", name: "FHIR R4 Endpoint for ExampleLabs", fhirBase: URL(string: "https://fhir.labs.example.com/r4")!, fhirVersion: "4.0.1"
        )])
    }

    @Test func specExample2AffiliatesConnectThroughTheirParent() throws {
        let brands = try read(ClientSpecExamples.brandsExample2)
        #expect(brands.map(\.name) == ["ExampleHealth", "ExampleHealth Community Hospital", "ExampleHealth Physicians of Madison"])
        #expect(brands.map(\.organizationID) == ["examplehealth", "ehchospital", "ehpmadison"])
        let parent = brands[0]
        #expect(parent.endpoints.map(\.id) == ["examplehealth-r2", "examplehealth-r4"])
        #expect(parent.endpoints.map(\.fhirBase.absoluteString) == ["https://ehr.example.com/ProdFHIR/api/FHIR/R2", "https://ehr.example.com/ProdFHIR/api/FHIR/R4"])
        #expect(parent.endpoints.map(\.fhirVersion) == ["1.0.2", "4.0.1"])
        #expect(parent.aliases == ["GoodHealth Hospital", "GoodHealth Mental Health"])
        #expect(parent.website == URL(string: "https://health.example.com"))
        // The affiliates have no endpoint of their own: the spec's cards connect them through the parent's portal.
        #expect(brands[1].endpoints == parent.endpoints && brands[2].endpoints == parent.endpoints)
        #expect(brands[1].website == URL(string: "https://www.ehchospital.example.com") && brands[1].aliases == ["GoodHealth Madison"])
    }

    @Test func specExample3AbsoluteReferencesToTwoEHRs() throws {
        let brands = try read(ClientSpecExamples.brandsExample3)
        #expect(brands.count == 1)
        #expect(brands[0].endpoints.map(\.id) == ["examplehospital-ehr1", "examplehospital-ehr2"])
        #expect(brands[0].endpoints.map(\.fhirBase.host) == ["ehr1.example.org", "ehr2.example.org"])
        #expect(brands[0].endpoints[0].name == "FHIR R4 Endpoint for ExampleHospital's EHR1 Patient Gateway")
    }

    @Test func specExample4TwoBrandsShareOneEndpoint() throws {
        let brands = try read(ClientSpecExamples.brandsExample4)
        #expect(brands.map(\.name) == ["Brand1", "Brand2"])
        #expect(brands[0].endpoints == brands[1].endpoints && brands[0].endpoints.count == 1)
        #expect(brands[0].endpoints[0].fhirBase.absoluteString == "https://example.org/brand1.org/ProdFHIR/api/FHIR/R4")
    }

    @Test func findsEndpointsByManagingOrganizationAndUUIDs() throws {
        let json = #"""
        {"resourceType":"Bundle","type":"collection","entry":[
          {"fullUrl":"urn:uuid:9d2f1e4a-0000-4000-8000-000000000001","resource":{"resourceType":"Organization","name":"  Clinic  ",
            "telecom":[{"system":"phone","value":"555"},{"system":"url","value":"not a url"},{"system":"url","value":"https://clinic.example"}],
            "extension":[{"url":"http://hl7.org/fhir/StructureDefinition/organization-brand","extension":[{"url":"brandLogo","valueUrl":"https://clinic.example/logo.svg"}]}]}},
          {"resource":{"resourceType":"Endpoint","id":"a","address":"https://fhir.clinic.example/r4/",
            "managingOrganization":{"reference":"urn:uuid:9d2f1e4a-0000-4000-8000-000000000001"}}},
          {"resource":{"resourceType":"Endpoint","id":"ftp","address":"ftp://files.clinic.example/",
            "managingOrganization":{"reference":"urn:uuid:9d2f1e4a-0000-4000-8000-000000000001"}}},
          {"resource":{"resourceType":"Endpoint","id":"relative","address":"/fhir",
            "managingOrganization":{"reference":"urn:uuid:9d2f1e4a-0000-4000-8000-000000000001"}}},
          {"resource":{"resourceType":"Organization","id":"nothing","name":"No Endpoints"}},
          {"resource":{"resourceType":"Organization","id":"nameless","endpoint":[{"reference":"Endpoint/a"}]}},
          {"resource":{"resourceType":"Organization","id":"portal","name":"Portal Only","extension":[
            {"url":"http://hl7.org/fhir/StructureDefinition/organization-portal","extension":[
              {"url":"portalName","valueString":"MyChart"},
              {"url":"portalEndpoint","valueReference":{"reference":"Endpoint/a"}},
              {"url":"portalEndpoint","valueReference":{"reference":"Endpoint/ftp"}}]}],
            "endpoint":[{"reference":"Endpoint/a"}]}},
          {"resource":{"resourceType":"Patient","id":"p"}},
          "not an object",
          {"fullUrl":"no resource"}
        ]}
        """#
        let brands = try read(json)
        #expect(brands.map(\.name) == ["Clinic", "Portal Only"])
        #expect(brands[0].organizationID == "urn:uuid:9d2f1e4a-0000-4000-8000-000000000001")
        #expect(brands[0].endpoints.map(\.id) == ["a"] && brands[0].endpoints[0].fhirVersion == nil && brands[0].endpoints[0].name == nil)
        #expect(brands[0].website == URL(string: "https://clinic.example") && brands[0].logo == URL(string: "https://clinic.example/logo.svg"))
        #expect(brands[1].endpoints.map(\.id) == ["a"] && brands[1].aliases.isEmpty && brands[1].website == nil && brands[1].logo == nil)
    }

    @Test func brandErrorsAreTyped() {
        #expect(throws: SMARTClientError.noBrands) { try read(#"{"resourceType":"Bundle","type":"collection","entry":[]}"#) }
        #expect(throws: SMARTClientError.noBrands) { try read(#"{"resourceType":"Bundle","type":"collection"}"#) }
        #expect(throws: SMARTClientError.noBrands) {
            try read(#"{"resourceType":"Bundle","entry":[{"resource":{"resourceType":"Organization","id":"o","name":"O","endpoint":[{"reference":"Endpoint/e"}]}},{"resource":{"resourceType":"Endpoint","id":"e","address":"mailto:x@example.org"}}]}"#)
        }
        #expect(throws: SMARTClientError.malformedBrands(#"resourceType is "Organization", not "Bundle""#)) { try read(#"{"resourceType":"Organization","name":"O"}"#) }
        #expect(throws: SMARTClientError.malformedBrands("no resourceType")) { try read(#"{"entry":[]}"#) }
        #expect(throws: SMARTClientError.malformedBrands("entry is not an array")) { try read(#"{"resourceType":"Bundle","entry":{}}"#) }
        #expect(throws: SMARTClientError.notJSON("the document is not a JSON object")) { try read("[]") }
        #expect(ClientTest.error { () throws(SMARTClientError) in try read("{") }.map { if case .notJSON = $0 { true } else { false } } == true)
    }

    @Test func errorDescriptionsSayWhatIsWrong() {
        #expect(SMARTClientError.missingMember("token_endpoint").description == "the document has no token_endpoint")
        #expect(SMARTClientError.invalidURL(member: "authorize", value: "x").description == #"authorize is not an http or https URL: "x""#)
        #expect(SMARTClientError.unsupportedTokenType("MAC").description == #"token_type "MAC" is not Bearer"#)
        #expect(SMARTClientError.stateMismatch.description.contains("state"))
        let all: [SMARTClientError] = [
            .notJSON("m"), .missingMember("m"), .invalidURL(member: "m", value: "v"), .noOAuthEndpoints, .stateMismatch, .missingCode,
            .malformedTokenResponse("m"), .unsupportedTokenType("t"), .unreadableKey("m"), .unsupportedKey("m"), .noBrands, .malformedBrands("m"),
        ]
        #expect(Set(all.map(\.description)).count == all.count)
    }
}
