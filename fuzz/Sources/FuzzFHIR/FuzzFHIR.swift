import ClinicalRecords
import FHIR
import Foundation

/// FHIR documents (resource, Bundle) and an NDJSON line, then classification and naming.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    let reader = FHIRDocumentReader(
        jsonLimits: JSONLimits(maxDocumentBytes: 1 << 20, maxDepth: 64, maxStringBytes: 1 << 16, maxContainerElements: 10_000), maxBundleEntries: 1000)
    guard let content = try? reader.read(bytes) else { return 0 }
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
