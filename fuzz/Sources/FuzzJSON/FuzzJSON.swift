import FHIR

/// The JSON reader: tape, tree and writer must agree, and never crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = JSONLimits(maxDocumentBytes: 1 << 20, maxDepth: 64, maxStringBytes: 1 << 16, maxContainerElements: 10_000)
    guard let value = try? JSONReader(limits: limits).read(bytes) else { return 0 }
    // What we write must read back as the same value.
    let written = JSONWriter.minified(value)
    guard let again = try? JSONReader(limits: JSONLimits(maxDocumentBytes: 4 << 20, maxDepth: 64, maxStringBytes: 1 << 20, maxContainerElements: 10_000)).read(written),
        again == value
    else { fatalError("JSON written from a parsed value does not read back the same") }
    return 0
}
