import FHIR
import Foundation
import Testing
import TestSupport

@Suite struct FHIRBundleTests {
    @Test func keepsEachEntrysOriginalBytes() throws {
        let data = try FixtureFiles.data("data/fhir/synthea/Luigi_Wiegand_e27d88b0-c5e5-4042-ad49-184f6a900ee3.json")
        guard case .bundle(let bundle) = try FHIRDocumentReader().read(data) else { Issue.record("not a bundle"); return }
        #expect(bundle.type == "transaction")
        #expect(bundle.entries.count > 40)
        let text = String(decoding: data, as: UTF8.self)
        for entry in bundle.entries {
            let r = try #require(entry.resource)
            let slice = String(decoding: r.data, as: UTF8.self)
            #expect(slice.hasPrefix("{") && slice.hasSuffix("}"))
            #expect(text.contains(slice))
            // The slice re-reads as the same resource.
            #expect(try FHIRResource(data: r.data).identifier == r.identifier)
        }
    }

    @Test func resolvesShortResourceReferences() throws {
        let data = try FixtureFiles.data("vectors/shc-spec/example-00-a-fhirBundle.json")
        guard case .bundle(let bundle) = try FHIRDocumentReader().read(data) else { Issue.record("not a bundle"); return }
        let immunization = try #require(bundle.entries.first { $0.resource?.resourceType == .immunization })
        let patientRef = try #require(try immunization.resource?.json().reference("patient")?.reference)
        #expect(patientRef == "resource:0")
        #expect(bundle.entry(for: patientRef)?.resource?.resourceType == .patient)
    }

    @Test func namesEntriesWithoutIdByFullUrlOrContent() throws {
        let json = """
            {"resourceType":"Bundle","type":"collection","entry":[
              {"fullUrl":"urn:uuid:61ebe359-bfdc-4613-8bf2-c5e300945f0a","resource":{"resourceType":"Patient"}},
              {"resource":{"resourceType":"Procedure","status":"completed"}},
              {"response":{"status":"200"}}]}
            """
        let first = try FHIRDocumentReader().read(Data(json.utf8)).resources
        let second = try FHIRDocumentReader().read(Data(json.utf8)).resources
        #expect(first.count == 2)
        #expect(first[0].identifier == "61ebe359-bfdc-4613-8bf2-c5e300945f0a")
        #expect(first[1].identifier.hasPrefix("derived-"))
        #expect(first[1].identifier == second[1].identifier)
        #expect(FHIRResource.isValidIdentifier(first[1].identifier))
    }

    @Test func readsNestedBundles() throws {
        let json = """
            {"resourceType":"Bundle","type":"batch-response","entry":[{"resource":{"resourceType":"Bundle","type":"searchset",
             "entry":[{"resource":{"resourceType":"Condition","id":"c1"}}]}}]}
            """
        #expect(try FHIRDocumentReader().read(Data(json.utf8)).resources.map(\.identifier) == ["c1"])
    }

    @Test func capsEntriesPerBundle() {
        let entries = (0..<5).map { #"{"resource":{"resourceType":"Patient","id":"p\#($0)"}}"# }.joined(separator: ",")
        let json = #"{"resourceType":"Bundle","type":"collection","entry":[\#(entries)]}"#
        #expect(throws: FHIRError.tooManyEntries(limit: 3)) { try FHIRDocumentReader(maxBundleEntries: 3).read(Data(json.utf8)) }
    }

    @Test func rejectsEntriesThatAreNotResources() {
        let json = #"{"resourceType":"Bundle","entry":[{"resource":{"id":"x"}}]}"#
        #expect(throws: FHIRError.invalidBundleEntry(index: 0, reason: FHIRError.notFHIR.description)) {
            try FHIRDocumentReader().read(Data(json.utf8))
        }
    }
}

@Suite struct NDJSONReaderTests {
    @Test func streamsLinesSkippingBlanksAndCRLF() throws {
        let dir = TemporaryDirectory()
        let path = try dir.write("a.ndjson", "{\"a\":1}\r\n\n  \n{\"b\":2}\n{\"c\":3}")
        var reader = try NDJSONReader(url: URL(fileURLWithPath: path))
        var lines: [(Int, String)] = []
        while let l = try reader.next() { lines.append((l.number, String(decoding: l.data, as: UTF8.self))) }
        #expect(lines.map(\.0) == [1, 4, 5])
        #expect(lines.map(\.1) == ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"])
    }

    @Test func boundsMemoryByTheLongestLine() throws {
        let dir = TemporaryDirectory()
        let long = String(repeating: "x", count: 300_000)
        let path = try dir.write("b.ndjson", "{\"a\":1}\n\"\(long)\"\n")
        var reader = try NDJSONReader(url: URL(fileURLWithPath: path), maxLineBytes: 100_000)
        #expect(try reader.next()?.number == 1)
        #expect(throws: FHIRError.lineTooLong(line: 2, limit: 100_000)) { try reader.next() }
    }

    /// Every line of every file is one resource: as many as the files hold non-blank lines
    /// (5,945 in the full export; the repository's copy keeps each file's first 40).
    @Test func readsEveryLineOfTheBulkExport() throws {
        var total = 0
        var lines = 0
        for file in Corpus.files("data/fhir/ndjson", extensions: ["ndjson"]) where file.lastPathComponent != "log.ndjson" {
            var reader = try NDJSONReader(url: file, maxLineBytes: 1 << 20)
            while let line = try reader.next() {
                _ = try FHIRResource(data: line.data)
                total += 1
            }
            lines += try Data(contentsOf: file).split(separator: UInt8(ascii: "\n")).filter { $0.contains { $0 > 0x20 } }.count
        }
        #expect(total == lines)
        #expect(total == (Corpus.isFull ? 5945 : 400))
    }
}
