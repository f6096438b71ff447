/// Hexadecimal text for bytes: digests in ids and file names, HMAC signatures of webhooks, key
/// identifiers, bytes named in error messages.
///
/// Encoding is lowercase unless asked otherwise, so an id has one spelling and compares as text;
/// decoding accepts either case but nothing else (no sign, prefix, separator or whitespace).
public enum Hex {

    /// Where decoding failed.
    public enum DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// A character that is not a hexadecimal digit, at this UTF-8 offset.
        case invalidCharacter(offset: Int)
        /// An odd number of digits: the last byte is half there.
        case oddLength

        public var description: String {
            switch self {
            case .invalidCharacter(let offset): return "byte \(offset) is not a hexadecimal digit"
            case .oddLength: return "an odd number of hexadecimal digits"
            }
        }
    }

    /// Two digits per byte, most significant first.
    public static func encode(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        // Straight from the caller's bytes when they are contiguous (`Data`, arrays): the FHIR
        // server names every resource of a page this way, and copying each key into an array
        // first was half the cost.
        let letter: UInt8 = uppercase ? UInt8(ascii: "A") - 10 : UInt8(ascii: "a") - 10
        func digits(_ input: UnsafeBufferPointer<UInt8>) -> String {
            String(unsafeUninitializedCapacity: input.count * 2) { out in
                for (i, byte) in input.enumerated() {
                    let high = byte >> 4, low = byte & 0x0F
                    out[2 * i] = high < 10 ? UInt8(ascii: "0") + high : letter + high
                    out[2 * i + 1] = low < 10 ? UInt8(ascii: "0") + low : letter + low
                }
                return input.count * 2
            }
        }
        if let text = bytes.withContiguousStorageIfAvailable(digits) { return text }
        return Array(bytes).withUnsafeBufferPointer(digits)
    }

    /// Decodes digits of either case.
    public static func decode(_ text: some StringProtocol) throws(DecodingError) -> [UInt8] {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { throw .oddLength }
        var out = [UInt8](repeating: 0, count: utf8.count / 2)
        for i in out.indices {
            guard let high = value(utf8[2 * i]) else { throw .invalidCharacter(offset: 2 * i) }
            guard let low = value(utf8[2 * i + 1]) else { throw .invalidCharacter(offset: 2 * i + 1) }
            out[i] = high << 4 | low
        }
        return out
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: return digit - 0x30
        case 0x41...0x46: return digit - 0x41 + 10
        case 0x61...0x66: return digit - 0x61 + 10
        default: return nil
        }
    }
}
