import ClinicalRecords
import FHIR
import Foundation
import Testing

@testable import ProviderSync

/// Reading a provider's pages: resources as a file import classifies them, OperationOutcomes
/// left out, `next` links resolved the way FHIR reads them.
@Suite struct ProviderPageTests {
    static let base = URL(string: "https://ehr.example.org/fhir/r4")!

    @Test func nextLinksResolveAbsoluteRootedQueryAndBareRelative() {
        let page = URL(string: "https://ehr.example.org/fhir/r4/Patient/1/$everything?_count=50")!
        #expect(ProviderPage.resolve("https://ehr.example.org/fhir/r4/x?page=2", page: page, base: Self.base)?.absoluteString == "https://ehr.example.org/fhir/r4/x?page=2")
        #expect(ProviderPage.resolve("/fhir/r4/Observation?page=2", page: page, base: Self.base)?.absoluteString == "https://ehr.example.org/fhir/r4/Observation?page=2")
        #expect(ProviderPage.resolve("?page=3", page: page, base: Self.base)?.absoluteString == "https://ehr.example.org/fhir/r4/Patient/1/$everything?page=3")
        // A bare relative link is relative to the service base, not to the page's path.
        #expect(ProviderPage.resolve("Patient/1/$everything?page=4", page: page, base: Self.base)?.absoluteString == "https://ehr.example.org/fhir/r4/Patient/1/$everything?page=4")
    }

    @Test func aSearchsetKeepsResourcesDropsOutcomesAndFindsNext() throws {
        let bundle = """
            {"resourceType":"Bundle","type":"searchset","total":2,
             "link":[{"relation":"self","url":"https://ehr.example.org/fhir/r4/Condition?patient=1"},{"relation":"next","url":"Condition?patient=1&page=2"}],
             "entry":[{"resource":{"resourceType":"Condition","id":"c1","code":{"text":"Asthma"},"subject":{"reference":"Patient/1"}},"search":{"mode":"match"}},
                      {"resource":{"resourceType":"OperationOutcome","id":"o","issue":[{"severity":"information","code":"informational"}]},"search":{"mode":"outcome"}}]}
            """
        let url = URL(string: "https://ehr.example.org/fhir/r4/Condition?patient=1")!
        let page = try ProviderPage(data: Data(bundle.utf8), url: url, base: Self.base)
        #expect(try page.entries.resources().map(\.identifier) == ["c1"])
        let producer = PageProducer(page: page, builder: RecordBuilder(), patient: "1")
        #expect(try producer.next()?.clinicalType == .condition)
        #expect(try producer.next() == nil)
        #expect(producer.stored == ["Condition/c1"])
        #expect(page.next?.absoluteString == "https://ehr.example.org/fhir/r4/Condition?patient=1&page=2")
        // The stored bytes are the entry's own bytes, as the provider sent them.
        let text = String(decoding: try page.entries.resources()[0].data, as: UTF8.self)
        #expect(text == #"{"resourceType":"Condition","id":"c1","code":{"text":"Asthma"},"subject":{"reference":"Patient/1"}}"#)
    }

    /// An entry is made into a resource only as the store takes it: one found wrong then fails
    /// the import with the error the whole-bundle reader gives (the sync reports the page as
    /// malformed, and the import stores nothing of it).
    @Test func anEntryFoundWrongAsItIsMadeFailsWithTheReadersError() throws {
        let bundle = #"{"resourceType":"Bundle","type":"searchset","entry":[{"resource":{"resourceType":"Condition","id":"c1","subject":{"reference":"Patient/1"}}},{"resource":{"resourceType":"Condition","id":"not ok!"}}]}"#
        let data = Data(bundle.utf8)
        let page = try ProviderPage(data: data, url: URL(string: "https://ehr.example.org/fhir/r4/Condition")!, base: Self.base)
        #expect(page.count == 2)
        let producer = PageProducer(page: page, builder: RecordBuilder(), patient: "1")
        #expect(try producer.next()?.resource.identifier == "c1")
        var expected: FHIRError?
        do { _ = try FHIRDocumentReader().read(data) } catch { expected = error }
        #expect(expected != nil)
        #expect(throws: expected!) { try producer.next() }
    }

    /// Once stored, a page lets go of its entries from every copy (they are freed elsewhere).
    @Test func aStoredPageLetsGoOfItsEntries() throws {
        let bundle = #"{"resourceType":"Bundle","entry":[{"resource":{"resourceType":"Condition","id":"c1","subject":{"reference":"Patient/1"}}}]}"#
        let page = try ProviderPage(data: Data(bundle.utf8), url: URL(string: "https://ehr.example.org/fhir/r4/Condition")!, base: Self.base)
        let copy = page
        let producer = PageProducer(page: page, builder: RecordBuilder(), patient: "1")
        while try producer.next() != nil {}
        producer.releaseInBackground()
        page.releaseInBackground()
        #expect(copy.entries.slots == 0 && page.count == 1)
    }

    @Test func aPageThatIsNotFHIRIsATypedError() {
        let url = URL(string: "https://ehr.example.org/fhir/r4/Condition")!
        for body in ["<html>login</html>", #"{"resourceType":"Bundle","entry":"x"}"#, #"{"no":"type"}"#] {
            #expect(throws: ProviderSyncError.self) { try ProviderPage(data: Data(body.utf8), url: url, base: Self.base) }
        }
    }
}

/// A server that ignores `patient`, or mixes people in a Bundle, answers others' records: only
/// what is shown to be the connected patient's is kept (review finding 2 of issue 28).
@Suite struct PatientFilterTests {
    /// Runs a page through the producer; the ids kept, and how many were left out.
    static func kept(_ entries: [String], patient: String = "p1") throws -> (ids: [String], dropped: Int) {
        let bundle = #"{"resourceType":"Bundle","type":"searchset","entry":[\#(entries.joined(separator: ","))]}"#
        let url = URL(string: "https://ehr.example.org/fhir/r4/Goal?patient=\(patient)")!
        let page = try ProviderPage(data: Data(bundle.utf8), url: url, base: ProviderPageTests.base)
        let producer = PageProducer(page: page, builder: RecordBuilder(), patient: patient)
        var kept: [String] = []
        while let next = try producer.next() { kept.append(next.resource.identifier) }
        return (kept, producer.dropped)
    }

    static func entry(_ resource: String, fullUrl: String? = nil) -> String {
        #"{\#(fullUrl.map { #""fullUrl":"\#($0)","# } ?? "")"resource":\#(resource)}"#
    }

    @Test func resourcesNamingAnotherPatientAreDropped() throws {
        let r = try Self.kept([
            #"{"resourceType":"Goal","id":"mine","subject":{"reference":"Patient/p1"},"description":{"text":"walk"}}"#,
            #"{"resourceType":"Goal","id":"theirs","subject":{"reference":"https://ehr.example.org/fhir/r4/Patient/p2"},"description":{"text":"run"}}"#,
            #"{"resourceType":"Immunization","id":"i2","patient":{"reference":"Patient/p2"},"status":"completed","vaccineCode":{"text":"flu"}}"#,
            #"{"resourceType":"Patient","id":"p2"}"#, #"{"resourceType":"Patient","id":"p1"}"#, #"{"resourceType":"Practitioner","id":"dr"}"#,
        ].map { Self.entry($0) })
        #expect(r.ids == ["mine", "p1", "dr"] && r.dropped == 3)
    }

    @Test func everyDisguiseOfAnotherPatientIsLeftOut() throws {
        let disguised: [String] = [
            // Versioned, relative and absolute.
            #"{"resourceType":"Observation","id":"x1","status":"final","code":{"text":"x"},"subject":{"reference":"Patient/p2/_history/3"}}"#,
            #"{"resourceType":"Observation","id":"x2","status":"final","code":{"text":"x"},"subject":{"reference":"https://other.example/fhir/Patient/p2/_history/3"}}"#,
            // A urn:uuid the Bundle resolves to another Patient.
            #"{"resourceType":"Condition","id":"x3","code":{"text":"x"},"subject":{"reference":"urn:uuid:0000-other"}}"#,
            // A urn:uuid nothing resolves.
            #"{"resourceType":"Condition","id":"x4","code":{"text":"x"},"subject":{"reference":"urn:uuid:0000-nobody"}}"#,
            // Someone's SSN alone; a display alone.
            #"{"resourceType":"Immunization","id":"x5","status":"completed","vaccineCode":{"text":"x"},"patient":{"identifier":{"system":"http://hl7.org/fhir/sid/us-ssn","value":"999-12-3456"}}}"#,
            #"{"resourceType":"Immunization","id":"x6","status":"completed","vaccineCode":{"text":"x"},"patient":{"display":"Robin Example"}}"#,
            // A contained Patient.
            ##"{"resourceType":"AllergyIntolerance","id":"x7","contained":[{"resourceType":"Patient","id":"who"}],"patient":{"reference":"#who"}}"##,
            // A Group; no subject on a patient-compartment type (R4 and DSTU2 spellings).
            #"{"resourceType":"Observation","id":"x8","status":"final","code":{"text":"x"},"subject":{"reference":"Group/ward"}}"#,
            #"{"resourceType":"Condition","id":"x9","code":{"text":"x"}}"#,
            #"{"resourceType":"MedicationOrder","id":"x10","medicationCodeableConcept":{"text":"x"}}"#,
            // The patient and another at once.
            #"{"resourceType":"Coverage","id":"x11","status":"active","beneficiary":{"reference":"Patient/p1"},"patient":{"reference":"Patient/p2"}}"#,
        ]
        let mine: [String] = [
            #"{"resourceType":"Observation","id":"m1","status":"final","code":{"text":"m"},"subject":{"reference":"Patient/p1/_history/7"}}"#,
            #"{"resourceType":"Observation","id":"m2","status":"final","code":{"text":"m"},"subject":{"reference":"https://ehr.example.org/fhir/r4/Patient/p1"}}"#,
            #"{"resourceType":"Condition","id":"m3","code":{"text":"m"},"subject":{"reference":"urn:uuid:0000-mine"}}"#,
            // DSTU2 names the patient `patient`.
            #"{"resourceType":"Condition","id":"m4","code":{"text":"m"},"patient":{"reference":"Patient/p1"}}"#,
            // Not about a patient at all.
            #"{"resourceType":"Organization","id":"m5","name":"Clinic"}"#, #"{"resourceType":"Medication","id":"m6","code":{"text":"m"}}"#,
        ]
        let entries = [
            Self.entry(#"{"resourceType":"Patient","id":"p1"}"#, fullUrl: "urn:uuid:0000-mine"),
            Self.entry(#"{"resourceType":"Patient","id":"p2"}"#, fullUrl: "urn:uuid:0000-other"),
        ] + (disguised + mine).map { Self.entry($0) }
        let r = try Self.kept(entries)
        #expect(r.ids == ["p1", "m1", "m2", "m3", "m4", "m5", "m6"])
        #expect(r.dropped == disguised.count + 1)
    }

    @Test func referencesAreReadAsFHIRDefinesThem() {
        let none: (String) -> JSONObject? = { _ in nil }
        for (reference, expected) in [
            ("Patient/p1", PatientCompartment.Resolved.connected), ("Patient/p1/_history/2", .connected), ("http://x/fhir/Patient/p1", .connected),
            ("Patient/p2", .otherPatient), ("Patient/p2/_history/1", .otherPatient), ("Patient/p1x", .otherPatient),
            ("Group/p1", .unresolvable), ("#p1", .unresolvable), ("urn:uuid:p1", .unresolvable), ("", .unresolvable), ("Patient/", .unresolvable),
            ("p1", .unresolvable), ("Patient//p1", .unresolvable),
        ] {
            #expect(PatientCompartment.resolved(reference, patient: "p1", resolve: none) == expected, "\(reference)")
        }
        #expect(PatientCompartment.resolved(nil, patient: "p1", resolve: none) == .unresolvable)
    }
}

/// A large page is classified by two threads at once; the store still gets it in page order.
@Suite struct ParallelClassificationTests {
    @Test func entriesComeBackInOrderWithOthersDropped() throws {
        var entries: [String] = []
        for i in 0..<(PageProducer.parallelFrom + 300) {
            let who = i % 7 == 0 ? "other" : "p1"
            entries.append(#"{"resource":{"resourceType":"Condition","id":"c\#(i)","code":{"text":"C \#(i)"},"subject":{"reference":"Patient/\#(who)"}}}"#)
        }
        let bundle = #"{"resourceType":"Bundle","type":"searchset","entry":[\#(entries.joined(separator: ","))]}"#
        let page = try ProviderPage(data: Data(bundle.utf8), url: URL(string: "https://ehr.example.org/fhir/r4/Condition")!, base: ProviderPageTests.base)
        let producer = PageProducer(page: page, builder: RecordBuilder(), patient: "p1")
        var names: [String] = []
        while let next = try producer.next() { names.append(next.displayName) }
        let expected = (0..<(PageProducer.parallelFrom + 300)).filter { $0 % 7 != 0 }
        #expect(names == expected.map { "C \($0)" })
        #expect(producer.stored == expected.map { "Condition/c\($0)" })
        #expect(producer.dropped == PageProducer.parallelFrom + 300 - expected.count)
    }
}
