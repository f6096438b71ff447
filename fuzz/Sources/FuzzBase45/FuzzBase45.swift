import DigitalCovidCertificates

/// Base45 (RFC 9285), the layer between a DCC's QR text and its zlib bytes.
///
/// The decoder is strict (45 characters, no 3k+1 length, no group over its bytes' range), so a
/// text that decodes has exactly one reading and must come back byte for byte from the encoder:
/// any difference would mean two texts for one payload, which the strict reader exists to rule out.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    // The raw-bytes entry point (what the QR path uses, bytes that may not be UTF-8).
    if let decoded = try? Base45.decode(input) {
        precondition(decoded.count == size / 3 * 2 + (size % 3 == 2 ? 1 : 0))
        let text = Base45.encode(decoded)
        precondition(Array(text.utf8) == Array(input), "base45 text decodes but re-encodes differently")
        // The String entry point reads the same bytes the same way.
        precondition((try? Base45.decode(text)) == decoded)
    } else {
        // A refusal on the bytes is a refusal on the same bytes as text (valid UTF-8 only: the
        // String initializer would repair other bytes into U+FFFD, which is different input).
        if let text = String(validating: input, as: UTF8.self) { precondition((try? Base45.decode(text)) == nil) }
    }
    // Any bytes encode, and the encoding decodes back to them.
    let bytes = Array(input)
    let encoded = Base45.encode(bytes)
    precondition(encoded.utf8.count == bytes.count / 2 * 3 + bytes.count % 2 * 2)
    precondition((try? Base45.decode(encoded)) == bytes, "base45 encode → decode does not round-trip")
    return 0
}
