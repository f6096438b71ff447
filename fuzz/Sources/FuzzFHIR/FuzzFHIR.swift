import ClinicalRecords
import FHIR
import Foundation

/// FHIR documents (resource, Bundle) and an NDJSON line, then classification and naming; and
/// the taped Bundle reader (what provider pages use) against the tree reader: the same entries,
/// bytes and references, or the same error for the same input, and each entry classified in
/// place on the tape as on its tree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    let reader = FHIRDocumentReader(
        jsonLimits: JSONLimits(maxDocumentBytes: 1 << 20, maxDepth: 64, maxStringBytes: 1 << 16, maxContainerElements: 10_000), maxBundleEntries: 1000)
    let tree = Result { () throws(FHIRError) in try reader.read(bytes) }
    compareTaped(bytes, reader, tree)
    guard case .success(let content) = tree else { return 0 }
    let builder = RecordBuilder()
    if let items = try? builder.classify(content) {
        for item in items {
            _ = item.displayName.count
            _ = item.clinicalDate?.interval
            precondition(!item.resource.data.isEmpty)
        }
    }
    return 0
}

/// A Bundle read from its tape gives the tree reader's entries, or fails as it fails.
func compareTaped(_ bytes: Data, _ reader: FHIRDocumentReader, _ tree: Result<FHIRContent, FHIRError>) {
    guard let tape = try? JSONTape([UInt8](bytes), limits: reader.jsonLimits) else {
        if case .success = tree { preconditionFailure("the tape refused what the tree reader read") }
        return
    }
    let taped: TapedBundle?
    do { taped = try reader.tapedBundle(tape, data: bytes) } catch {
        guard case .failure(let expected) = tree, expected == error else { preconditionFailure("whole-bundle errors differ: \(error) vs \(tree)") }
        return
    }
    guard let taped else {
        if case .success(.bundle) = tree { preconditionFailure("a Bundle the tape did not see") }
        return
    }
    switch tree {
    case .success(.bundle(let bundle)):
        precondition(taped.count == bundle.entries.count && taped.fhirVersion == bundle.fhirVersion && taped.type == bundle.type)
        let builder = RecordBuilder()
        for (i, expected) in bundle.entries.enumerated() {
            guard let entry = try? taped.entry(i) else { preconditionFailure("entry \(i) failed on the tape only") }
            precondition(entry.fullUrl == expected.fullUrl && entry.resource == expected.resource)
            guard let (inPlace, object) = try? taped.entryOnTape(i) else { preconditionFailure("entry \(i) failed in place only") }
            precondition(inPlace.resource == expected.resource)
            if let r = expected.resource, let json = try? r.json() {
                let onTree = builder.classify(r, reading: json) { ref in try? bundle.entry(for: ref)?.resource?.json() }
                let onTape = builder.classify(r, reading: object) { ref in taped.object(for: ref) }
                precondition(onTape.category == onTree.category && onTape.displayName == onTree.displayName, "entry \(i) classified differently in place")
                precondition(onTape.clinicalDate == onTree.clinicalDate, "entry \(i) dated differently in place")
            }
            if let r = expected.resource, let fullUrl = expected.fullUrl {
                precondition(taped.resource(for: fullUrl) == bundle.entry(for: fullUrl)?.resource)
                let typeAndID = r.resourceType.rawValue + "/" + r.identifier
                precondition(taped.resource(for: typeAndID) == bundle.entry(for: typeAndID)?.resource)
            }
        }
    case .success(.resource):
        preconditionFailure("the tape read a single resource as a Bundle")
    case .failure(let expected):
        // The first entry that fails on the tape fails as the tree reader failed.
        for i in 0..<taped.count {
            do { _ = try taped.entry(i) } catch {
                precondition(error == expected, "entry \(i): \(error) vs \(expected)")
                do { _ = try taped.entryOnTape(i) } catch { precondition(error == expected, "entry \(i) in place: \(error) vs \(expected)") }
                return
            }
        }
        preconditionFailure("the tree reader failed (\(expected)) but every taped entry was read")
    }
}
