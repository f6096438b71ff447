import Foundation
import SampleSignatures

/// The signed-sample ASN.1 module: parse, and what parses must re-encode to the same DER.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let content = try? SignedSampleContent(derRepresentation: bytes) {
        precondition(content.derRepresentation == bytes, "DER is one and only one encoding")
    }
    return 0
}
