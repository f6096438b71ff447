/// Why bytes are not one well-formed CBOR item within the reader's bounds.
public enum CBORError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes end inside an item.
    case truncated(offset: Int)
    /// An indefinite-length string whose chunks are not definite strings of its own type, or
    /// an indefinite length where none can be (an integer, a tag).
    case indefiniteLength(offset: Int)
    /// Additional information 28–30, reserved by RFC 8949.
    case reservedAdditionalInformation(offset: Int)
    /// A "break" byte outside an indefinite-length item.
    case unexpectedBreak(offset: Int)
    /// A simple value written in two bytes that fits in one (below 32).
    case badSimpleValue(offset: Int)
    /// Nesting deeper than the limit.
    case tooDeep(limit: Int)
    /// More items than the limit, or a length larger than the bytes left.
    case tooLarge(offset: Int)
    /// A text string that is not UTF-8.
    case invalidUTF8(offset: Int)
    /// A map that has the same key twice.
    case duplicateKey(offset: Int)
    /// Bytes after the item.
    case trailingBytes(offset: Int)

    public var description: String {
        switch self {
        case .truncated(let o): return "CBOR ends inside an item at offset \(o)"
        case .indefiniteLength(let o): return "malformed indefinite-length item at offset \(o)"
        case .reservedAdditionalInformation(let o): return "reserved additional information at offset \(o)"
        case .unexpectedBreak(let o): return "break byte outside an indefinite-length item at offset \(o)"
        case .badSimpleValue(let o): return "two-byte simple value below 32 at offset \(o)"
        case .tooDeep(let limit): return "CBOR nested deeper than \(limit) levels"
        case .tooLarge(let o): return "item at offset \(o) is larger than the bytes or the limits allow"
        case .invalidUTF8(let o): return "text string at offset \(o) is not UTF-8"
        case .duplicateKey(let o): return "map key at offset \(o) repeats an earlier key"
        case .trailingBytes(let o): return "bytes after the CBOR item, from offset \(o)"
        }
    }
}
