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

/// A server that ignores `patient` answers everyone's records: only the person's are kept.
@Suite struct PatientFilterTests {
    @Test func resourcesNamingAnotherPatientAreDropped() throws {
        let bundle = """
            {"resourceType":"Bundle","type":"searchset","entry":[
             {"resource":{"resourceType":"Goal","id":"mine","subject":{"reference":"Patient/p1"},"description":{"text":"walk"}}},
             {"resource":{"resourceType":"Goal","id":"theirs","subject":{"reference":"https://ehr.example.org/fhir/r4/Patient/p2"},"description":{"text":"run"}}},
             {"resource":{"resourceType":"Immunization","id":"i2","patient":{"reference":"Patient/p2"},"status":"completed","vaccineCode":{"text":"flu"}}},
             {"resource":{"resourceType":"Patient","id":"p2"}},
             {"resource":{"resourceType":"Patient","id":"p1"}},
             {"resource":{"resourceType":"Practitioner","id":"dr"}}]}
            """
        let url = URL(string: "https://ehr.example.org/fhir/r4/Goal?patient=p1")!
        let page = try ProviderPage(data: Data(bundle.utf8), url: url, base: ProviderPageTests.base)
        let producer = PageProducer(page: page, builder: RecordBuilder(), patient: "p1")
        var kept: [String] = []
        while let next = try producer.next() { kept.append(next.resource.identifier) }
        #expect(kept == ["mine", "p1", "dr"])
        #expect(producer.dropped == 3 && producer.stored == ["Goal/mine", "Patient/p1", "Practitioner/dr"])
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
