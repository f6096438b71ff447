import FHIR
import Foundation
import Testing
import TestSupport

@Suite struct FHIRResourceTests {
    @Test func keepsDecimalTextInQuantities() throws {
        let data = try FixtureFiles.data("data/fhir/r4-examples/observation-example-f003-co2.json")
        let resource = try FHIRResource(data: data)
        #expect(resource.resourceType == .observation)
        #expect(resource.fhirVersion == .primaryR4)
        #expect(resource.data == data)
        let json = try resource.json()
        #expect(json.quantity("valueQuantity")?.value?.text == "6.2")
        let high = try #require(json.list("referenceRange").first?.objectValue?.quantity("high"))
        #expect(high.value?.text == "6.0")
        #expect(high.value?.fractionDigits == 1)
        #expect(high.value?.value == Decimal(6))
        #expect(high.unit == "kPa")
    }

    @Test func readsCodingsReferencesAndPeriods() throws {
        let json = """
            {"resourceType":"Observation","id":"x","code":{"coding":[{"system":"http://loinc.org","code":"2339-0","display":"Glucose"}],"text":"Blood sugar"},
             "subject":{"reference":"Patient/p1","display":"Pat"},"effectivePeriod":{"start":"2020-01","end":"2020-02-03"},
             "valueQuantity":{"value":0.40,"unit":"mmol/L","system":"http://unitsofmeasure.org","code":"mmol/L"}}
            """
        let r = try FHIRResource(data: Data(json.utf8))
        let o = try r.json()
        let code = try #require(o.codeableConcept("code"))
        #expect(code.text == "Blood sugar")
        #expect(code.coding(system: CodeSystem.loinc)?.code == "2339-0")
        #expect(o.reference("subject")?.typeAndIdentifier?.identifier == "p1")
        #expect(o.period("effectivePeriod")?.start?.precision == .month)
        #expect(o.quantity("valueQuantity")?.value?.text == "0.40")
    }

    @Test func isStrictAboutResourceTypeAndId() {
        #expect(throws: FHIRError.notFHIR) { try FHIRResource(data: Data(#"{"id":"a"}"#.utf8)) }
        #expect(throws: FHIRError.missingIdentifier(resourceType: "Patient", offset: 0)) {
            try FHIRResource(data: Data(#"{"resourceType":"Patient"}"#.utf8))
        }
        #expect(throws: FHIRError.invalidResourceType(found: "12", offset: 0)) {
            try FHIRResource(data: Data(#"{"resourceType":12,"id":"a"}"#.utf8))
        }
        #expect(throws: FHIRError.invalidIdentifier(resourceType: "Patient", id: "a/b", offset: 0)) {
            try FHIRResource(data: Data(#"{"resourceType":"Patient","id":"a/b"}"#.utf8))
        }
        #expect(throws: FHIRError.notAnObject) { try FHIRResource(data: Data("[1]".utf8)) }
    }

    @Test func acceptsStringBooleansFromSloppyExports() throws {
        let data = try FixtureFiles.data("data/fhir/dstu2/custom/hspc-bilirubin-chart.json")
        let content = try FHIRDocumentReader().read(data)
        let patient = try #require(content.resources.first { $0.resourceType == .patient })
        #expect(try patient.json().bool("active") == true)
        #expect(patient.fhirVersion.fhirRelease == .dstu2)
    }

    @Test func detectsReleasesOfTheSharedSets() throws {
        for file in Corpus.files("data/fhir/dstu2", extensions: ["json"]) {
            let content = try FHIRDocumentReader().read(try Data(contentsOf: file))
            #expect(content.resources.allSatisfy { $0.fhirVersion.fhirRelease == .dstu2 }, "\(file.lastPathComponent)")
        }
        for file in Corpus.files("data/fhir/synthea", extensions: ["json"]) {
            let content = try FHIRDocumentReader().read(try Data(contentsOf: file))
            #expect(content.resources.allSatisfy { $0.fhirVersion.fhirRelease == .r4 }, "\(file.lastPathComponent)")
        }
    }

    @Test func honoursAGivenVersion() throws {
        let data = Data(#"{"resourceType":"Patient","id":"a"}"#.utf8)
        let r = try FHIRDocumentReader(fhirVersion: .primaryDSTU2).read(data).resources[0]
        #expect(r.fhirVersion == .primaryDSTU2)
    }
}
