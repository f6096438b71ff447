import ClinicalRecords
import FHIR
import Foundation
import Testing
import TestSupport

@Suite struct ClassificationTests {
    let builder = RecordBuilder()

    func classify(_ json: String) throws -> ClassifiedResource {
        try builder.classify(try FHIRResource(data: Data(json.utf8)))
    }

    @Test(arguments: [
        ("AllergyIntolerance", ClinicalType.allergy), ("Condition", .condition), ("Immunization", .immunization),
        ("MedicationOrder", .medication), ("MedicationRequest", .medication), ("MedicationStatement", .medication),
        ("MedicationDispense", .medication), ("Procedure", .procedure), ("Coverage", .coverage),
        ("DiagnosticReport", .clinicalNote), ("DocumentReference", .clinicalNote),
    ])
    func mapsResourceTypesLikeHealthKit(_ type: String, _ expected: ClinicalType) throws {
        #expect(try classify(#"{"resourceType":"\#(type)","id":"a"}"#).clinicalType == expected)
    }

    @Test(arguments: ["Patient", "Encounter", "Claim", "Organization", "Practitioner", "CarePlan", "ExplanationOfBenefit"])
    func keepsOtherTypesAsContext(_ type: String) throws {
        #expect(try classify(#"{"resourceType":"\#(type)","id":"a"}"#).clinicalType == nil)
    }

    @Test func splitsObservationsByCategory() throws {
        let vital = #"{"resourceType":"Observation","id":"a","category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/observation-category","code":"vital-signs"}]}]}"#
        let lab = #"{"resourceType":"Observation","id":"a","category":[{"coding":[{"code":"laboratory"}]}]}"#
        let dstu2Lab = #"{"resourceType":"Observation","id":"a","category":{"coding":[{"system":"http://hl7.org/fhir/observation-category","code":"laboratory"}]}}"#
        let survey = #"{"resourceType":"Observation","id":"a","category":[{"coding":[{"code":"survey"}]}]}"#
        #expect(try classify(vital).clinicalType == .vitalSign)
        #expect(try classify(lab).clinicalType == .labResult)
        #expect(try classify(dstu2Lab).clinicalType == .labResult)
        #expect(try classify(survey).clinicalType == nil)
    }

    @Test func fallsBackToVitalSignCodesWithoutCategory() throws {
        let heartRate = #"{"resourceType":"Observation","id":"a","code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}]}}"#
        let glucose = #"{"resourceType":"Observation","id":"a","code":{"coding":[{"system":"http://loinc.org","code":"2339-0"}]}}"#
        #expect(try classify(heartRate).clinicalType == .vitalSign)
        #expect(try classify(glucose).clinicalType == .labResult)
    }

    @Test func picksTheClinicalDateByType() throws {
        #expect(try classify(#"{"resourceType":"Immunization","id":"a","occurrenceDateTime":"2021-01-02"}"#).clinicalDate?.text == "2021-01-02")
        #expect(try classify(#"{"resourceType":"Immunization","id":"a","date":"2015-05"}"#).clinicalDate?.text == "2015-05")
        #expect(try classify(#"{"resourceType":"Condition","id":"a","onsetPeriod":{"start":"2010"}}"#).clinicalDate?.text == "2010")
        #expect(try classify(#"{"resourceType":"MedicationRequest","id":"a","authoredOn":"2019-03-04"}"#).clinicalDate?.text == "2019-03-04")
        #expect(try classify(#"{"resourceType":"Observation","id":"a","issued":"2019-03-04T10:00:00Z"}"#).clinicalDate?.precision == .second)
        #expect(try classify(#"{"resourceType":"Procedure","id":"a"}"#).clinicalDate == nil)
    }
}

@Suite struct DisplayNameTests {
    let builder = RecordBuilder()

    func name(_ json: String) throws -> String {
        try builder.classify(try FHIRResource(data: Data(json.utf8))).displayName
    }

    @Test func prefersTextThenPreferredSystemThenAnyDisplay() throws {
        #expect(try name(#"{"resourceType":"Observation","id":"a","code":{"text":"Sugar","coding":[{"system":"http://loinc.org","code":"2339-0","display":"Glucose"}]}}"#) == "Sugar")
        #expect(try name(#"{"resourceType":"Observation","id":"a","code":{"coding":[{"system":"urn:x","code":"1","display":"Local"},{"system":"http://loinc.org","code":"2339-0","display":"Glucose"}]}}"#) == "Glucose")
        #expect(try name(#"{"resourceType":"Condition","id":"a","code":{"coding":[{"system":"urn:x","code":"1","display":"Local name"}]}}"#) == "Local name")
    }

    @Test func looksUpCodesWithoutDisplayInTheShippedTables() throws {
        // Minimized SMART Health Cards carry no display: CVX 207 is a COVID-19 vaccine, 94 MMRV.
        let cvx = try name(#"{"resourceType":"Immunization","id":"a","vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"207"}]}}"#)
        #expect(cvx.contains("COVID-19"))
        #expect(try name(#"{"resourceType":"Immunization","id":"a","vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"94"}]}}"#) == "MMRV")
        #expect(try name(#"{"resourceType":"Observation","id":"a","code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}]}}"#) == "Heart rate")
    }

    @Test func namesMedicationsByTheirReferencedMedication() throws {
        let contained = ##"{"resourceType":"MedicationRequest","id":"a","contained":[{"resourceType":"Medication","id":"m","code":{"text":"Aspirin 81 mg"}}],"medicationReference":{"reference":"#m"}}"##
        #expect(try name(contained) == "Aspirin 81 mg")
        let bundle = """
            {"resourceType":"Bundle","type":"collection","entry":[
             {"fullUrl":"urn:uuid:m1","resource":{"resourceType":"Medication","id":"m1","code":{"coding":[{"system":"http://www.nlm.nih.gov/research/umls/rxnorm","code":"1","display":"Metformin"}]}}},
             {"fullUrl":"urn:uuid:r1","resource":{"resourceType":"MedicationRequest","id":"r1","medicationReference":{"reference":"urn:uuid:m1"}}}]}
            """
        let items = try builder.classify(try FHIRDocumentReader().read(Data(bundle.utf8)))
        #expect(items.first { $0.resource.identifier == "r1" }?.displayName == "Metformin")
    }

    @Test func fallsBackToTheCodeOrTheType() throws {
        #expect(try name(#"{"resourceType":"Observation","id":"a","code":{"coding":[{"system":"http://loinc.org","code":"0000-0"}]}}"#) == "LOINC 0000-0")
        #expect(try name(#"{"resourceType":"Procedure","id":"a"}"#) == "Procedure")
    }

    @Test func shipsTheLOINCNotice() {
        #expect(CodeTables.loincNotice.contains("Regenstrief"))
    }
}

@Suite struct ImmunizationChecklistTests {
    func dose(_ cvx: String?, _ date: String) -> ImmunizationDose {
        ImmunizationDose(date: FHIRDate(date), cvx: cvx, vaccineName: "v\(cvx ?? "")", record: nil)
    }

    @Test func mmrvCoversFourAntigens() {
        let list = ImmunizationChecklist(doses: [dose("94", "2015-01-01")])
        #expect(Set(list.antigens.map(\.name)) == ["Measles", "Mumps", "Rubella", "Varicella"])
        #expect(Set(list.vaccineGroups.map(\.name)) == ["MMR", "VARICELLA"])
    }

    @Test func matchesCodesWithOrWithoutLeadingZeros() {
        let list = ImmunizationChecklist(doses: [dose("03", "2015-01-01"), dose("3", "2016-01-01")])
        #expect(list.vaccineGroups.first { $0.name == "MMR" }?.doses.map { $0.date?.text } == ["2015-01-01", "2016-01-01"])
    }

    @Test func appliesAgeBoundedAntigensWithABirthDate() {
        // CVX 121 (zoster live) counts as zoster from 50 years on, as varicella before.
        let old = ImmunizationChecklist(doses: [dose("121", "2015-01-01")], birthDate: FHIRDate("1950-01-01"))
        #expect(old.antigens.map(\.name) == ["Zoster"])
        let young = ImmunizationChecklist(doses: [dose("121", "2015-01-01")], birthDate: FHIRDate("1990-01-01"))
        #expect(young.antigens.map(\.name) == ["Varicella"])
    }

    @Test func skipsDosesNotGivenAndListsUnknownCodes() throws {
        let notDone = try FHIRResource(data: Data(#"{"resourceType":"Immunization","id":"a","status":"not-done","vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"03"}]}}"#.utf8))
        let record = ClinicalRecord(clinicalType: .immunization, displayName: "MMR", fhirResource: notDone, source: RecordSource(identifier: "s"), addedDate: Date(), clinicalDate: nil)
        #expect(ImmunizationChecklist(records: [record]).vaccineGroups.isEmpty)
        let unknown = ImmunizationChecklist(doses: [dose("99999", "2015-01-01"), dose(nil, "2015")])
        #expect(unknown.unmapped.count == 2)
    }
}
