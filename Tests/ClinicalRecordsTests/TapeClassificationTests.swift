import ClinicalRecords
import FHIR
import Foundation
import Testing
import TestSupport

/// Classifying a resource read in place on its tape gives what classifying its parsed tree
/// gives: the same clinical type, category, display name and clinical date, for every resource
/// in the shared data and for the odd shapes real exports and hostile input take.
@Suite struct TapeClassificationTests {
    let builder = RecordBuilder()

    /// The classification of the object at `token`, read on the tape and as a tree; references
    /// resolve inside `bundle` both ways.
    func expectSame(_ resource: FHIRResource, _ tape: JSONTape, _ token: Int, bundle: TapedBundle?, tree: FHIRBundle?, _ what: String) throws {
        let object = try #require(TapeObject(tape, token), "\(what)")
        let json = try #require(tape.object(token), "\(what)")
        let onTree = builder.classify(resource, reading: json) { ref in try? tree?.entry(for: ref)?.resource?.json() }
        let onTape = builder.classify(resource, reading: object) { ref in bundle?.object(for: ref) }
        #expect(onTape.clinicalType == onTree.clinicalType, "\(what)")
        #expect(onTape.category == onTree.category, "\(what)")
        #expect(onTape.displayName == onTree.displayName, "\(what)")
        #expect(onTape.clinicalDate == onTree.clinicalDate, "\(what)")
        for key in ["code", "category", "type", "vaccineCode", "medicationCodeableConcept", "subject", "patient", "period", "effectivePeriod"] {
            #expect(object.codeableConcept(key) == json.codeableConcept(key), "\(what) \(key)")
            #expect(object.codeableConcepts(key) == json.codeableConcepts(key), "\(what) \(key)")
            #expect(object.reference(key) == json.reference(key), "\(what) \(key)")
            #expect(object.period(key) == json.period(key), "\(what) \(key)")
        }
    }

    @Test func everySharedResourceClassifiesTheSameOnItsTape() throws {
        var resources = 0
        let documents = Corpus.files("data/fhir", extensions: ["json"]) + Corpus.files("vectors/shc-spec", extensions: ["json"])
        for url in documents {
            let data = try Data(contentsOf: url)
            guard let tape = try? JSONTape([UInt8](data)), tape.kind(tape.root) == .object else { continue }
            if let bundle = try? FHIRDocumentReader().tapedBundle(tape, data: data), case .bundle(let tree)? = try? FHIRDocumentReader().read(data) {
                for i in 0..<bundle.count {
                    let (entry, object) = try bundle.entryOnTape(i)
                    let resource = try #require(entry.resource)
                    try expectSame(resource, tape, object.token, bundle: bundle, tree: tree, "\(url.lastPathComponent) #\(i)")
                    resources += 1
                }
            } else if tape.member(tape.root, "resourceType") != nil, let resource = try? FHIRResource(data: data) {
                try expectSame(resource, tape, tape.root, bundle: nil, tree: nil, url.lastPathComponent)
                resources += 1
            }
        }
        for url in Corpus.files("data/fhir/ndjson", extensions: ["ndjson"]) {
            for line in try Data(contentsOf: url).split(separator: UInt8(ascii: "\n")).prefix(300) {
                guard let resource = try? FHIRResource(data: Data(line)) else { continue }
                let tape = try JSONTape([UInt8](line))
                try expectSame(resource, tape, tape.root, bundle: nil, tree: nil, url.lastPathComponent)
                resources += 1
            }
        }
        #expect(resources > 3_000, "\(resources) resources")
    }

    /// Shapes the readers must agree on: a single coding object, a numeric code, codes and
    /// displays of the wrong type, null, escaped and non-ASCII keys, repeated keys (the first
    /// wins), lists given as one value, and a Medication named in `contained` or in the Bundle.
    @Test(arguments: [
        #"{"resourceType":"Observation","id":"a","category":{"coding":{"code":"vital-signs"}},"code":{"coding":[{"system":"http://loinc.org","code":8867}]}}"#,
        #"{"resourceType":"Observation","id":"a","category":[null,{"coding":[{"code":"LAB"}]},"x"],"code":{"text":"  Sodium  "}}"#,
        #"{"resourceType":"Observation","id":"a","c\u006fde":{"text":"escaped"},"code":{"text":"second"}}"#,
        #"{"resourceType":"Observation","id":"a","code":{"text":"first"},"code":{"text":"second"},"effectiveDateTime":"2020-02-30"}"#,
        #"{"resourceType":"Observation","id":"a","códe":{"text":"accent"},"code":{"coding":[{"system":"http://loinc.org","code":"8310-5","userSelected":"true"}]}}"#,
        #"{"resourceType":"Observation","id":"a","category":[{"coding":[{"code":"social-history"}]}],"code":{"coding":[{"system":7,"code":true,"display":null}]}}"#,
        #"{"resourceType":"Condition","id":"a","code":{"coding":[{"system":"http://snomed.info/sct","code":"1","display":"\t"}]},"onsetPeriod":{"start":"2019-01"}}"#,
        ##"{"resourceType":"MedicationRequest","id":"a","medicationReference":{"reference":"#m1","display":"fallback"},"contained":[1,{"resourceType":"Medication","id":"m1","code":{"text":"Contained med"}}]}"##,
        #"{"resourceType":"MedicationRequest","id":"a","medicationReference":{"reference":"Medication/m2"},"dispenseRequest":{"validityPeriod":{"start":"2018-05-06"}}}"#,
        ##"{"resourceType":"MedicationStatement","id":"a","medicationReference":{"reference":"#none","display":"  "},"contained":{"id":"none"}}"##,
        #"{"resourceType":"Coverage","id":"a","payor":{"display":"Acme"},"period":{"start":"2001"}}"#,
        #"{"resourceType":"Coverage","id":"a","payor":["x",{"display":"Second"}],"class":[{"name":"Gold"}]}"#,
        #"{"resourceType":"Coverage","id":"a","payor":[],"class":{"name":"Silver"}}"#,
        #"{"resourceType":"DocumentReference","id":"a","description":"Note","context":{"period":{"start":"2017-03-04T05:06:07Z"}}}"#,
        #"{"resourceType":"Immunization","id":"a","vaccineCode":{"coding":[{"system":"http://hl7.org/fhir/sid/cvx","code":"03"}]},"date":"2015"}"#,
        #"{"resourceType":"AllergyIntolerance","id":"a","substance":{"coding":[{"code":"x"}]},"code":null}"#,
        #"{"resourceType":"Encounter","id":"a","type":[{"text":"not a concept list reader"}],"period":[]}"#,
    ])
    func oddShapesClassifyTheSameOnTheirTape(_ resource: String) throws {
        let bundleText = #"{"resourceType":"Bundle","entry":[{"resource":"# + resource
            + #"},{"fullUrl":"urn:uuid:m2","resource":{"resourceType":"Medication","id":"m2","code":{"coding":[{"display":"Bundled med"}]}}}]}"#
        let data = Data(bundleText.utf8)
        let tape = try JSONTape([UInt8](data))
        let bundle = try #require(try FHIRDocumentReader().tapedBundle(tape, data: data))
        guard case .bundle(let tree) = try FHIRDocumentReader().read(data) else { throw FHIRError.notFHIR }
        let (entry, object) = try bundle.entryOnTape(0)
        try expectSame(try #require(entry.resource), tape, object.token, bundle: bundle, tree: tree, resource)
    }
}
