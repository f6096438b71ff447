/// One CBOR data item (RFC 8949), as the strict reader gives it and the writer takes it.
///
/// Integers keep CBOR's two major types so every value in −2⁶⁴…2⁶⁴−1 round-trips; maps keep
/// their entries in the order they were encoded (COSE headers and CWT claims are small, and the
/// reader refuses duplicate keys).
public indirect enum CBORValue: Sendable, Hashable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the integer −1 − `n`.
    case negative(UInt64)
    /// Major type 2: a byte string.
    case bytes([UInt8])
    /// Major type 3: a UTF-8 text string.
    case text(String)
    /// Major type 4: an array.
    case array([CBORValue])
    /// Major type 5: a map, in encoded order.
    case map([CBORMapEntry])
    /// Major type 6: a tagged item.
    case tagged(UInt64, CBORValue)
    /// `false` or `true`.
    case bool(Bool)
    /// `null`.
    case null
    /// `undefined`.
    case undefined
    /// Another simple value (0…19, 32…255).
    case simple(UInt8)
    /// A half-, single- or double-precision float.
    case float(Double)

    /// The value of an integer item that fits an `Int64`, else `nil`.
    public var int64: Int64? {
        switch self {
        case .unsigned(let n): return n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): return n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: return nil
        }
    }

    /// The text of a text string, else `nil`.
    public var text: String? {
        if case .text(let s) = self { return s }
        return nil
    }

    /// The bytes of a byte string, else `nil`.
    public var bytes: [UInt8]? {
        if case .bytes(let b) = self { return b }
        return nil
    }

    /// The entries of a map, else `nil`.
    public var mapEntries: [CBORMapEntry]? {
        if case .map(let m) = self { return m }
        return nil
    }

    /// The elements of an array, else `nil`.
    public var arrayElements: [CBORValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The value under a text key of a map.
    public subscript(key: String) -> CBORValue? {
        mapEntries?.first { $0.key == .text(key) }?.value
    }

    /// The value under an integer key of a map (COSE labels and CWT claim keys).
    public subscript(label: Int64) -> CBORValue? {
        mapEntries?.first { $0.key.int64 == label }?.value
    }

    /// An integer item for a signed value.
    public static func integer(_ v: Int64) -> CBORValue {
        v >= 0 ? .unsigned(UInt64(v)) : .negative(UInt64(-1 - v))
    }
}

/// One key and value of a CBOR map.
public struct CBORMapEntry: Sendable, Hashable {
    /// The key.
    public var key: CBORValue
    /// The value.
    public var value: CBORValue

    /// Makes an entry.
    public init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}
