import Foundation
import SampleSignatures

/// DER/CMS SignedData parsing and verification against a fixed key.
let key = DeviceSigningKey()
let verifier = CMSVerifier(trusting: [TrustedSigner(publicKey: key.publicKey)])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? verifier.verify(derEncoded: bytes, detachedContent: nil)
    _ = try? verifier.verify(derEncoded: bytes, detachedContent: Array("content".utf8))
    return 0
}
