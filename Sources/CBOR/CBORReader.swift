/// A strict, bounded CBOR reader (RFC 8949) for what DCCs carry: COSE structures and CWT claims.
///
/// No duplicate map keys, no trailing bytes, nesting and item counts capped — every item is
/// checked against the bytes left before anything is allocated, so a length field cannot make
/// the reader reserve gigabytes. Indefinite-length items (which the member states' test data
/// uses for its plain CBOR) are read under the same caps: a string's chunks must be definite
/// strings of its own type, and every one must end with a break before the bytes do.
/// Non-preferred (longer than needed) integer encodings are accepted, as other DCC verifiers
/// accept them.
public struct CBORReader {
    /// How much one item may hold.
    public struct Limits: Sendable, Hashable {
        /// The deepest nesting of arrays, maps and tags.
        public var maxDepth: Int
        /// The most data items in all.
        public var maxItems: Int

        /// Makes limits; by default 16 levels and 10,000 items (a DCC has well under 100).
        public init(maxDepth: Int = 16, maxItems: Int = 10_000) {
            self.maxDepth = maxDepth
            self.maxItems = maxItems
        }

        /// The limits used unless a caller has a reason for others.
        public static let `default` = Limits()
    }

    /// Decodes exactly one item from `bytes`.
    public static func decode(_ bytes: [UInt8], limits: Limits = .default) throws(CBORError) -> CBORValue {
        // withUnsafeBytes rethrows untyped errors; a Result carries the typed one out.
        try bytes.withUnsafeBytes { raw in Result { () throws(CBORError) in try decode(raw, limits: limits) } }.get()
    }

    /// Decodes exactly one item from raw bytes.
    public static func decode(_ raw: UnsafeRawBufferPointer, limits: Limits = .default) throws(CBORError) -> CBORValue {
        var reader = Cursor(bytes: raw, limits: limits)
        let value = try reader.item(depth: 0)
        guard reader.offset == raw.count else { throw .trailingBytes(offset: reader.offset) }
        return value
    }

    /// Decodes the first item of `bytes` and says where it ends; for callers that need an
    /// item's exact encoded bytes (a COSE protected header is signed as encoded).
    public static func decodePrefix(_ raw: UnsafeRawBufferPointer, limits: Limits = .default) throws(CBORError) -> (CBORValue, end: Int) {
        var reader = Cursor(bytes: raw, limits: limits)
        let value = try reader.item(depth: 0)
        return (value, reader.offset)
    }

    struct Cursor {
        let bytes: UnsafeRawBufferPointer
        let limits: Limits
        var offset = 0
        var items = 0

        init(bytes: UnsafeRawBufferPointer, limits: Limits) {
            self.bytes = bytes
            self.limits = limits
        }

        mutating func byte() throws(CBORError) -> UInt8 {
            guard offset < bytes.count else { throw .truncated(offset: offset) }
            defer { offset += 1 }
            return bytes[offset]
        }

        /// The argument of an initial byte: the value or length that follows it.
        mutating func argument(_ info: UInt8, start: Int) throws(CBORError) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24, 25, 26, 27:
                let width = 1 << Int(info - 24)
                guard bytes.count - offset >= width else { throw .truncated(offset: offset) }
                var v: UInt64 = 0
                for k in 0..<width { v = v << 8 | UInt64(bytes[offset + k]) }
                offset += width
                return v
            case 31: throw .indefiniteLength(offset: start)
            default: throw .reservedAdditionalInformation(offset: start)
            }
        }

        /// Whether the next byte is a break (and, if so, steps over it).
        mutating func takeBreak() throws(CBORError) -> Bool {
            guard offset < bytes.count else { throw .truncated(offset: offset) }
            guard bytes[offset] == 0xFF else { return false }
            offset += 1
            return true
        }

        /// The chunks of an indefinite-length byte or text string, joined.
        mutating func chunks(major: UInt8, start: Int) throws(CBORError) -> [UInt8] {
            var joined: [UInt8] = []
            while try !takeBreak() {
                let chunkStart = offset
                let initial = try byte()
                guard initial >> 5 == major, initial & 0x1F != 31 else { throw .indefiniteLength(offset: chunkStart) }
                items += 1
                guard items <= limits.maxItems else { throw .tooLarge(offset: chunkStart) }
                let n = try length(initial & 0x1F, start: chunkStart, unit: 1)
                if major == 3, String(validating: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + n]), as: UTF8.self) == nil {
                    throw .invalidUTF8(offset: chunkStart)
                }
                joined += UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + n])
                offset += n
            }
            return joined
        }

        /// A length that the bytes left can hold, each element taking at least `unit` bytes.
        mutating func length(_ info: UInt8, start: Int, unit: Int) throws(CBORError) -> Int {
            let n = try argument(info, start: start)
            let left = UInt64(bytes.count - offset)
            guard n <= left / UInt64(unit) else { throw n <= left ? .tooLarge(offset: start) : .truncated(offset: start) }
            return Int(n)
        }

        mutating func item(depth: Int) throws(CBORError) -> CBORValue {
            items += 1
            guard items <= limits.maxItems else { throw .tooLarge(offset: offset) }
            let start = offset
            let initial = try byte()
            let major = initial >> 5
            let info = initial & 0x1F
            switch major {
            case 0: return .unsigned(try argument(info, start: start))
            case 1: return .negative(try argument(info, start: start))
            case 2:
                if info == 31 { return .bytes(try chunks(major: 2, start: start)) }
                let n = try length(info, start: start, unit: 1)
                defer { offset += n }
                return .bytes(Array(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + n])))
            case 3:
                if info == 31 {
                    let joined = try chunks(major: 3, start: start)
                    guard let s = String(validating: joined, as: UTF8.self) else { throw .invalidUTF8(offset: start) }
                    return .text(s)
                }
                let n = try length(info, start: start, unit: 1)
                guard let s = String(validating: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + n]), as: UTF8.self) else {
                    throw .invalidUTF8(offset: start)
                }
                offset += n
                return .text(s)
            case 4:
                guard depth < limits.maxDepth else { throw .tooDeep(limit: limits.maxDepth) }
                if info == 31 {
                    var elements: [CBORValue] = []
                    while try !takeBreak() { elements.append(try item(depth: depth + 1)) }
                    return .array(elements)
                }
                let n = try length(info, start: start, unit: 1)
                var elements: [CBORValue] = []
                elements.reserveCapacity(n)
                for _ in 0..<n { elements.append(try item(depth: depth + 1)) }
                return .array(elements)
            case 5:
                guard depth < limits.maxDepth else { throw .tooDeep(limit: limits.maxDepth) }
                var entries: [CBORMapEntry] = []
                // Small maps (every COSE header and CWT) are searched; larger ones hashed, so a
                // hostile map of thousands of keys costs linear time, not quadratic.
                var keys = Set<CBORValue>()
                func entry() throws(CBORError) {
                    let keyOffset = offset
                    let key = try item(depth: depth + 1)
                    let repeated: Bool
                    if entries.count < 8 {
                        repeated = entries.contains { $0.key == key }
                        if entries.count == 7 && !repeated { keys = Set(entries.map(\.key) + [key]) }
                    } else {
                        repeated = !keys.insert(key).inserted
                    }
                    if repeated { throw .duplicateKey(offset: keyOffset) }
                    entries.append(CBORMapEntry(key, try item(depth: depth + 1)))
                }
                if info == 31 {
                    while try !takeBreak() { try entry() }
                    return .map(entries)
                }
                let n = try length(info, start: start, unit: 2)
                entries.reserveCapacity(n)
                for _ in 0..<n { try entry() }
                return .map(entries)
            case 6:
                guard depth < limits.maxDepth else { throw .tooDeep(limit: limits.maxDepth) }
                let tag = try argument(info, start: start)
                return .tagged(tag, try item(depth: depth + 1))
            default:
                return try simple(info, start: start)
            }
        }

        mutating func simple(_ info: UInt8, start: Int) throws(CBORError) -> CBORValue {
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 23: return .undefined
            case 24:
                let v = try byte()
                guard v >= 32 else { throw .badSimpleValue(offset: start) }
                return .simple(v)
            case 25: return .float(Self.half(UInt16(try argument(info, start: start))))
            case 26: return .float(Double(Float(bitPattern: UInt32(try argument(info, start: start)))))
            case 27: return .float(Double(bitPattern: try argument(info, start: start)))
            case 31: throw .unexpectedBreak(offset: start)
            case 28, 29, 30: throw .reservedAdditionalInformation(offset: start)
            default: return .simple(info)
            }
        }

        /// An IEEE 754 half-precision value.
        static func half(_ h: UInt16) -> Double {
            let exponent = Int(h >> 10) & 0x1F
            let mantissa = Double(h & 0x3FF)
            let magnitude: Double
            switch exponent {
            case 0: magnitude = mantissa * 0x1p-24
            case 31: magnitude = mantissa == 0 ? .infinity : .nan
            default: magnitude = (1 + mantissa / 1024) * Double(sign: .plus, exponent: exponent - 15, significand: 1)
            }
            return h & 0x8000 != 0 ? -magnitude : magnitude
        }
    }
}
