import ByteEncodings
import SmartHealthCards

/// The strict compact-JWS parser and base64url.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let jws = try? CompactJWS(text) {
        precondition(jws.signingInputLength < text.utf8.count)
        // Every part re-encodes to the text it came from (base64url is canonical).
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        precondition(Base64URL.encode(jws.signature) == parts[2])
    }
    if let bytes = try? Base64URL.decode(text) {
        precondition(Base64URL.encode(bytes) == text)
    }
    return 0
}
