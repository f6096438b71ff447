import FHIR
import Foundation
import Testing
import TestSupport

/// A Bundle read from its tape, entry by entry, is the Bundle the tree reader reads: the same
/// entries, bytes, ids, release and references, and the same errors for the same entries.
@Suite struct TapedBundleTests {
    /// Every JSON document under ../shared/data/fhir and the SMART Health Card bundles.
    static var documents: [URL] {
        Corpus.files("data/fhir/synthea", extensions: ["json"]) + Corpus.files("data/fhir/dstu2", extensions: ["json"])
            + Corpus.files("data/fhir/r4-examples", extensions: ["json"]) + Corpus.files("vectors/shc-spec", extensions: ["json"])
    }

    static func taped(_ data: Data) throws -> TapedBundle? {
        try FHIRDocumentReader().tapedBundle(try JSONTape([UInt8](data)), data: data)
    }

    @Test func everyBundleReadsAsTheTreeReaderReadsIt() throws {
        var bundles = 0
        var entries = 0
        var dstu2 = 0
        for url in Self.documents {
            let data = try Data(contentsOf: url)
            guard (try? JSONReader().read(data))?["resourceType"]?.stringValue == "Bundle" else {
                #expect(try Self.taped(data) == nil, "\(url.lastPathComponent) is not a Bundle")
                continue
            }
            let tree: FHIRBundle
            do {
                guard case .bundle(let b) = try FHIRDocumentReader().read(data) else { Issue.record("\(url.lastPathComponent)"); continue }
                tree = b
            } catch {
                // A bundle the tree reader refuses is refused entry by entry the same way.
                try expectSameFailure(data, error, url.lastPathComponent)
                continue
            }
            let taped = try #require(try Self.taped(data), "\(url.lastPathComponent)")
            bundles += 1
            #expect(taped.type == tree.type && taped.fhirVersion == tree.fhirVersion, "\(url.lastPathComponent)")
            #expect(taped.count == tree.entries.count, "\(url.lastPathComponent)")
            if tree.fhirVersion.fhirRelease == .dstu2 { dstu2 += 1 }
            for (i, expected) in tree.entries.enumerated() where i < taped.count {
                let entry = try taped.entry(i)
                #expect(entry.index == expected.index && entry.fullUrl == expected.fullUrl, "\(url.lastPathComponent) #\(i)")
                #expect(entry.resource == expected.resource, "\(url.lastPathComponent) #\(i)")
                #expect(try entry.resource?.json() == expected.resource?.json(), "\(url.lastPathComponent) #\(i)")
                #expect(taped.resourceType(i) == expected.resource?.resourceType.rawValue)
                // Read in place: the same resource, its bytes a slice of the page's.
                let (inPlace, object) = try taped.entryOnTape(i)
                #expect(inPlace.index == expected.index && inPlace.fullUrl == expected.fullUrl, "\(url.lastPathComponent) #\(i)")
                #expect(inPlace.resource == expected.resource, "\(url.lastPathComponent) #\(i)")
                #expect(try inPlace.resource?.json() == expected.resource?.json(), "\(url.lastPathComponent) #\(i)")
                #expect(Data(object.tape.bytes[object.tape.byteRange(object.token)]) == expected.resource?.data, "\(url.lastPathComponent) #\(i)")
                entries += 1
                // Each entry is found by its fullUrl and by Type/id as the tree bundle finds it.
                if let resource = expected.resource {
                    for reference in [expected.fullUrl, resource.resourceType.rawValue + "/" + resource.identifier].compactMap({ $0 }) {
                        #expect(taped.resource(for: reference) == tree.entry(for: reference)?.resource, "\(url.lastPathComponent) \(reference)")
                        let found = taped.object(for: reference).map { Data($0.tape.bytes[$0.tape.byteRange($0.token)]) }
                        #expect(found == tree.entry(for: reference)?.resource?.data, "\(url.lastPathComponent) \(reference)")
                    }
                }
            }
            #expect(taped.resource(for: "Nothing/here") == nil && taped.object(for: "Nothing/here") == nil)
        }
        #expect(bundles >= 20 && entries > 1_000 && dstu2 >= 1, "bundles \(bundles), entries \(entries), DSTU2 \(dstu2)")
    }

    /// The release markers read in place give the same release as on the tree, resource by resource.
    @Test func releaseMarkersReadInPlaceAgreeWithTheTree() throws {
        var marked = 0
        for url in Self.documents {
            let data = try Data(contentsOf: url)
            guard let taped = try? Self.taped(data), case .bundle(let tree)? = try? FHIRDocumentReader().read(data) else { continue }
            for i in 0..<taped.count {
                let resource = try #require(tree.entries[i].resource)
                let onTree = FHIRReleaseDetector.release(of: try resource.json(), type: resource.resourceType)
                // A bundle read with each entry's own release as its only entry: the taped reader
                // decides the same way from the tape alone.
                let single = #"{"resourceType":"Bundle","entry":[{"resource":"# + String(decoding: resource.data, as: UTF8.self) + "}]}"
                let alone = try #require(try Self.taped(Data(single.utf8)))
                if let onTree {
                    marked += 1
                    #expect(alone.fhirVersion.fhirRelease == onTree, "\(url.lastPathComponent) #\(i)")
                } else {
                    #expect(alone.fhirVersion.fhirRelease == .r4, "\(url.lastPathComponent) #\(i): no marker reads as R4")
                }
            }
        }
        #expect(marked > 500)
    }

    @Test func malformedBundlesFailAsTheTreeReaderFails() throws {
        let cases = [
            #"{"resourceType":"Bundle","entry":"x"}"#,
            #"{"resourceType":"Bundle","entry":[1]}"#,
            #"{"resourceType":"Bundle","entry":[{"resource":[]}]}"#,
            #"{"resourceType":"Bundle","entry":[{"resource":{"resourceType":"Patient","id":"ok"}},{"resource":{"resourceType":"Patient","id":"not ok!"}}]}"#,
            #"{"resourceType":"Bundle","entry":[{"resource":{"resourceType":7,"id":"a"}}]}"#,
            #"{"resourceType":"Bundle","entry":[{"resource":{"resourceType":"Bundle","entry":[{"resource":{"resourceType":"Observation","id":4}}]}}]}"#,
        ]
        for text in cases {
            let data = Data(text.utf8)
            do {
                _ = try FHIRDocumentReader().read(data)
                Issue.record("the tree reader took \(text)")
            } catch {
                try expectSameFailure(data, error, text)
            }
        }
        // Too many entries is a whole-bundle error, thrown when the bundle is read.
        let many = Data(#"{"resourceType":"Bundle","entry":[{"resource":{"resourceType":"Patient","id":"a"}},{"resource":{"resourceType":"Patient","id":"b"}}]}"#.utf8)
        #expect(throws: FHIRError.tooManyEntries(limit: 1)) { try FHIRDocumentReader(maxBundleEntries: 1).tapedBundle(try JSONTape([UInt8](many)), data: many) }
    }

    /// The taped reader throws the tree reader's error, either when reading the bundle or for
    /// the first entry that fails.
    private func expectSameFailure(_ data: Data, _ treeError: any Error, _ what: String) throws {
        let expected = try #require(treeError as? FHIRError, "\(what): \(treeError)")
        var found: FHIRError?
        do {
            if let taped = try Self.taped(data) {
                for i in 0..<taped.count {
                    do { _ = try taped.entry(i) } catch {
                        found = error
                        // Read in place, the entry fails the same way.
                        #expect(throws: error) { try taped.entryOnTape(i) }
                        break
                    }
                    _ = try taped.entryOnTape(i)
                }
            }
        } catch let error as FHIRError { found = error } catch { Issue.record("\(what): \(error)") }
        #expect(found == expected, "\(what)")
    }
}
