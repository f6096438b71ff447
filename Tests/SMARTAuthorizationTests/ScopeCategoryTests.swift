import ClinicalRecords
import FHIR
import Foundation
import SMARTAuthorization
import Testing

@Suite struct ScopeCategoryTests {
    static func categories(_ scope: String) throws -> Set<ConsentCategory> {
        try ScopeRequest(parsing: scope).consentCategories
    }

    @Test(arguments: [
        ("patient/AllergyIntolerance.read", ["allergy"]),
        ("patient/Condition.rs", ["condition"]),
        ("patient/Immunization.read", ["immunization"]),
        ("patient/Observation.read", ["lab-result", "vital-sign", "social-history", "other-observations"]),
        ("patient/MedicationRequest.rs", ["medication"]),
        ("patient/MedicationStatement.rs", ["medication"]),
        ("patient/MedicationDispense.rs", ["medication"]),
        ("patient/MedicationOrder.read", ["medication"]),
        ("patient/Procedure.rs", ["procedure"]),
        ("patient/Coverage.rs", ["coverage"]),
        ("patient/DiagnosticReport.rs", ["clinical-note"]),
        ("patient/DocumentReference.rs", ["clinical-note"]),
        ("patient/Patient.read", ["personal-details"]),
        ("patient/Encounter.rs", ["visits"]),
        ("patient/Practitioner.rs", ["practitioner-details"]),
        ("patient/ExplanationOfBenefit.rs", ["claims"]),
        ("patient/CarePlan.rs", ["care-plans"]),
        ("patient/MedicationAdministration.rs", ["medication"]),
        ("patient/QuestionnaireResponse.rs", ["other-observations"]),
        ("patient/Device.rs", ["devices"]),
        ("patient/FamilyMemberHistory.rs", ["other"]),
        ("patient/Provenance.read", ["other"]),
        ("user/Observation.r", ["lab-result", "vital-sign", "social-history", "other-observations"]),
        ("user/Observation.s", ["lab-result", "vital-sign", "social-history", "other-observations"]),
    ])
    func typeScopesReachTheirCategories(scope: String, names: [String]) throws {
        #expect(try Self.categories(scope) == Set(names.map { ConsentCategory(rawValue: $0)! }))
    }

    @Test(arguments: [
        ("patient/Observation.rs?category=laboratory", ["lab-result"]),
        ("patient/Observation.rs?category=http://terminology.hl7.org/CodeSystem/observation-category|laboratory", ["lab-result"]),
        ("patient/Observation.rs?category=http://terminology.hl7.org/CodeSystem/v2-0074|LAB", ["lab-result"]),
        ("patient/Observation.rs?category=vital-signs", ["vital-sign"]),
        ("patient/Observation.rs?category=social-history", ["social-history"]),
        ("patient/Observation.rs?category=survey", ["other-observations"]),
        ("patient/Observation.rs?category=exam", ["other-observations"]),
        ("patient/Condition.rs?category=problem-list-item", ["condition"]),
        ("patient/Condition.rs?category=encounter-diagnosis", ["condition"]),
        ("patient/DiagnosticReport.rs?category=LAB", ["clinical-note"]),
        ("patient/DocumentReference.rs?category=clinical-note", ["clinical-note"]),
    ])
    func granularScopesNarrow(scope: String, names: [String]) throws {
        #expect(try Self.categories(scope) == Set(names.map { ConsentCategory(rawValue: $0)! }))
    }

    @Test func wildcardsReachEveryCategory() throws {
        let every = Set(ConsentCategory.allCases)
        #expect(try Self.categories("patient/*.read") == every)
        #expect(try Self.categories("user/*.rs") == every)
        #expect(try Self.categories("patient/*.*") == every)
        #expect(try Self.categories("patient/*.s") == every)
        #expect(every.count == 19)
    }

    @Test func writeOnlyScopesReachNothing() throws {
        #expect(try Self.categories("patient/*.write").isEmpty)
        #expect(try Self.categories("patient/Observation.cud").isEmpty)
        #expect(try Self.categories("patient/*.c patient/Condition.d openid fhirUser").isEmpty)
    }

    @Test func aRequestReachesTheUnionOfItsScopes() throws {
        let request = try ScopeRequest(parsing: "openid patient/Patient.read patient/Observation.rs?category=laboratory patient/Condition.write patient/Immunization.s")
        #expect(request.consentCategories == [.context(.personalDetails), .clinical(.labResult), .clinical(.immunization)])
        #expect(request.consentCategories.sorted() == [.clinical(.immunization), .clinical(.labResult), .context(.personalDetails)])
        #expect(request.consentCategories(for: .read) == [.context(.personalDetails), .clinical(.labResult)])
        // v1 read is rs: Patient.read allows search too.
        #expect(request.consentCategories(for: .search) == [.context(.personalDetails), .clinical(.labResult), .clinical(.immunization)])
    }

    /// Whatever the classifier files a resource of a type under, the scope on that type reaches:
    /// a type scope never hides part of its type, and the map agrees with `ClinicalClassifier`.
    @Test func typeScopesCoverEveryCategoryTheClassifierCanChoose() throws {
        let classifier = ClinicalClassifier()
        var types = Set(ClinicalType.allCases.flatMap(\.resourceTypes))
        types.formUnion(ContextCategory.byResourceType.keys)
        types.formUnion(["Provenance", "FamilyMemberHistory", "ImagingStudy", "Basic"])
        let observationVariants = [
            #""category":[{"coding":[{"code":"laboratory"}]}],"code":{"text":"x"}"#,
            #""category":[{"coding":[{"system":"http://terminology.hl7.org/CodeSystem/v2-0074","code":"LAB"}]}],"code":{"text":"x"}"#,
            #""category":[{"coding":[{"code":"vital-signs"}]}],"code":{"text":"x"}"#,
            #""category":[{"coding":[{"code":"social-history"}]}],"code":{"text":"x"}"#,
            #""category":[{"coding":[{"code":"survey"}]}],"code":{"text":"x"}"#,
            #""category":[{"coding":[{"code":"exam"}]}],"code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}]}"#,
            #""code":{"coding":[{"system":"http://loinc.org","code":"8867-4"}]}"#,
            #""code":{"coding":[{"system":"http://loinc.org","code":"2345-7"}]}"#,
            #""code":{"text":"no category"}"#,
        ]
        var seen = Set<ConsentCategory>()
        for type in types.sorted() {
            let bodies = type == "Observation" ? observationVariants.map { ",\($0)" } : [""]
            let reached = try Self.categories("patient/\(type).rs")
            for body in bodies {
                let json = #"{"resourceType":"\#(type)","id":"x1","status":"final"\#(body)}"#
                let resource = try FHIRResource(data: Data(json.utf8))
                let category = classifier.category(of: resource, json: try resource.json())
                seen.insert(category)
                #expect(reached.contains(category), "\(type) filed under \(category), outside \(reached)")
            }
        }
        // Every category is reachable by some type scope.
        #expect(seen == Set(ConsentCategory.allCases))
    }

    /// A granular Observation scope reaches the category the classifier gives an Observation
    /// carrying only that category code.
    @Test(arguments: ["laboratory", "LAB", "vital-signs", "social-history", "survey", "exam", "imaging", "therapy", "activity", "procedure"])
    func granularObservationScopesMatchTheClassifier(code: String) throws {
        let json = #"{"resourceType":"Observation","id":"o1","status":"final","category":[{"coding":[{"code":"\#(code)"}]}],"code":{"text":"x"}}"#
        let resource = try FHIRResource(data: Data(json.utf8))
        let category = ClinicalClassifier().category(of: resource, json: try resource.json())
        #expect(try Self.categories("patient/Observation.rs?category=\(code)") == [category])
    }

    @Test func resourceTypeCategoriesAreNeverEmpty() {
        #expect(ResourceTypeCategories.categories(ofResourceType: "NotAType") == [.context(.other)])
        #expect(ResourceTypeCategories.categories(ofResourceType: "Observation", categoryCode: "vital-signs") == [.clinical(.vitalSign)])
    }
}
