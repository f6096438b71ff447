import SmartHealthCards

/// `shc:/` numeric text and chunk assembly (input split at newlines into chunks).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let chunk = try? HealthCardQRText.decode(text), chunk.total == nil {
        precondition(HealthCardQRText.encode(jws: chunk.jws) == text, "numeric text does not round-trip")
    }
    let parts = text.split(separator: "\n").map(String.init)
    if let (jws, _) = try? HealthCardQRText.assemble(Array(parts.prefix(16))) {
        precondition(jws.utf8.count * 2 <= text.utf8.count)
    }
    return 0
}
