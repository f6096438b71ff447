import FHIR

/// The JSON reader: tape, tree and writer must agree, and never crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = JSONLimits(maxDocumentBytes: 1 << 20, maxDepth: 64, maxStringBytes: 1 << 16, maxContainerElements: 10_000)
    let tree = try? JSONReader(limits: limits).read(bytes)
    let tape = try? JSONTape(bytes, limits: limits)
    if (tree == nil) != (tape == nil) { fatalError("the tape and the tree reader disagree on whether this is JSON") }
    guard let value = tree, let tape else { return 0 }
    guard tape.value(tape.root) == value else { fatalError("the tape reads another value than the tree reader") }
    // What we write must read back as the same value.
    let written = JSONWriter.minified(value)
    guard let again = try? JSONReader(limits: JSONLimits(maxDocumentBytes: 4 << 20, maxDepth: 64, maxStringBytes: 1 << 20, maxContainerElements: 10_000)).read(written),
        again == value
    else { fatalError("JSON written from a parsed value does not read back the same") }
    return 0
}
