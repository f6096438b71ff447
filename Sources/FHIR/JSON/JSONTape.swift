#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A parsed JSON document stored flat: one token per value, in document order, pointing into the
/// original bytes. Nothing is allocated per value, so reading a document costs little more than
/// scanning it; values become ``JSONValue``s only when asked for.
///
/// The tape checks exactly what ``JSONReader`` checks (it is the reader's first pass), with the
/// same limits and the same byte offsets in errors.
public struct JSONTape: Sendable {
    /// What a token is.
    public enum Kind: UInt8, Sendable {
        case null, `false`, `true`, number, string, array, object
    }

    @usableFromInline
    struct Token: Sendable {
        @usableFromInline var kind: Kind
        /// Strings: bit 0 = has escapes, bit 1 = has non-ASCII bytes.
        @usableFromInline var flags: UInt8
        /// Strings: first byte after the quote. Containers: the opening bracket. Others: first byte.
        @usableFromInline var start: UInt32
        /// Strings: the closing quote. Containers: one past the closing bracket. Others: one past the end.
        @usableFromInline var end: UInt32
        /// The index of the token after this value and everything inside it.
        @usableFromInline var next: UInt32

        @usableFromInline init(kind: Kind, flags: UInt8, start: UInt32, end: UInt32, next: UInt32) {
            self.kind = kind
            self.flags = flags
            self.start = start
            self.end = end
            self.next = next
        }
    }

    /// The document's bytes, kept whole: tokens point into them and values are decoded from them on demand.
    public let bytes: [UInt8]
    @usableFromInline let tokens: [Token]

    /// Parses a document, checking the grammar and `limits`; throws at the first error, with its byte offset.
    public init(_ bytes: [UInt8], limits: JSONLimits = .default) throws(JSONError) {
        guard bytes.count <= limits.maxDocumentBytes else {
            throw JSONError(.documentTooLarge(size: bytes.count, limit: limits.maxDocumentBytes), at: 0)
        }
        let result: Result<[Token], JSONError> = bytes.withUnsafeBufferPointer { p in
            var parser = TapeParser(bytes: p, limits: limits)
            return Result { () throws(JSONError) in try parser.parseDocument() }
        }
        self.bytes = bytes
        self.tokens = try result.get()
    }

    /// The index of the root value.
    public var root: Int { 0 }

    /// The number of tokens: one per value and one per object key.
    public var count: Int { tokens.count }

    /// What the token at `i` is.
    @inlinable public func kind(_ i: Int) -> Kind { tokens[i].kind }

    /// The index after the value at `i` and everything inside it.
    @inlinable public func next(_ i: Int) -> Int { Int(tokens[i].next) }

    /// The byte range of the value at `i` (containers include their brackets; strings exclude their quotes).
    public func byteRange(_ i: Int) -> Range<Int> { Int(tokens[i].start)..<Int(tokens[i].end) }

    /// The member value of object `i` named `key` (the first one), if any.
    @inlinable public func member(_ i: Int, _ key: StaticString) -> Int? {
        guard tokens[i].kind == .object else { return nil }
        let end = Int(tokens[i].next)
        var k = i + 1
        while k < end {
            if keyEquals(k, key) { return k + 1 }
            k = Int(tokens[k + 1].next)
        }
        return nil
    }

    /// The (key, value) token pairs of object `i`.
    public func members(_ i: Int) -> [(key: Int, value: Int)] {
        guard tokens[i].kind == .object else { return [] }
        var out: [(Int, Int)] = []
        let end = Int(tokens[i].next)
        var k = i + 1
        while k < end {
            out.append((k, k + 1))
            k = Int(tokens[k + 1].next)
        }
        return out
    }

    /// Calls `body` with each member's key token and value token of object `i`.
    @inlinable public func forEachMember(_ i: Int, _ body: (_ key: Int, _ value: Int) throws -> Void) rethrows {
        guard tokens[i].kind == .object else { return }
        let end = Int(tokens[i].next)
        var k = i + 1
        while k < end {
            try body(k, k + 1)
            k = Int(tokens[k + 1].next)
        }
    }

    /// Calls `body` with each element token of array `i`.
    @inlinable public func forEachElement(_ i: Int, _ body: (Int) throws -> Void) rethrows {
        guard tokens[i].kind == .array else { return }
        let end = Int(tokens[i].next)
        var k = i + 1
        while k < end {
            try body(k)
            k = Int(tokens[k].next)
        }
    }

    /// The element tokens of array `i` (a single non-array value counts as a list of one).
    public func elements(_ i: Int) -> [Int] {
        guard tokens[i].kind == .array else { return [i] }
        var out: [Int] = []
        forEachElement(i) { out.append($0) }
        return out
    }

    /// Whether the key (or string) token `k` equals `key`.
    @inlinable public func keyEquals(_ k: Int, _ key: StaticString) -> Bool {
        let t = tokens[k]
        guard t.kind == .string else { return false }
        if t.flags & 1 != 0 { return string(k) == String(describing: key) }
        let n = Int(t.end &- t.start)
        guard n == key.utf8CodeUnitCount else { return false }
        return bytes.withUnsafeBufferPointer { b in
            memcmp(b.baseAddress! + Int(t.start), key.utf8Start, n) == 0
        }
    }

    /// The string at `i`, escapes decoded.
    public func string(_ i: Int) -> String? {
        let t = tokens[i]
        guard t.kind == .string else { return nil }
        let range = Int(t.start)..<Int(t.end)
        if t.flags & 1 == 0 { return String(decoding: bytes[range], as: UTF8.self) }
        return bytes.withUnsafeBufferPointer { JSONEscapes.decode(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// The number at `i`, its text exact.
    public func number(_ i: Int) -> JSONNumber? {
        let t = tokens[i]
        guard t.kind == .number else { return nil }
        return JSONNumber(uncheckedText: String(decoding: bytes[Int(t.start)..<Int(t.end)], as: UTF8.self))
    }

    /// The number at `i` as a `Double`.
    public func double(_ i: Int) -> Double? { number(i)?.doubleValue }

    /// The boolean at `i`.
    public func bool(_ i: Int) -> Bool? {
        switch tokens[i].kind {
        case .true: return true
        case .false: return false
        default: return nil
        }
    }

    /// The value at `i` as a ``JSONValue`` tree (objects keep their byte ranges).
    public func value(_ i: Int = 0) -> JSONValue {
        var k = i
        return materialize(&k)
    }

    /// The object at `i` as a ``JSONObject``.
    public func object(_ i: Int) -> JSONObject? {
        guard tokens[i].kind == .object else { return nil }
        return value(i).objectValue
    }

    private func materialize(_ k: inout Int) -> JSONValue {
        let t = tokens[k]
        switch t.kind {
        case .null: k += 1; return .null
        case .true: k += 1; return .bool(true)
        case .false: k += 1; return .bool(false)
        case .number:
            defer { k += 1 }
            return .number(number(k)!)
        case .string:
            defer { k += 1 }
            return .string(string(k)!)
        case .array:
            let end = Int(t.next)
            k += 1
            var elements: [JSONValue] = []
            elements.reserveCapacity(4)
            while k < end { elements.append(materialize(&k)) }
            return .array(elements)
        case .object:
            let end = Int(t.next)
            k += 1
            var members: [JSONMember] = []
            members.reserveCapacity(8)
            while k < end {
                let key = string(k)!
                k += 1
                members.append(JSONMember(key, materialize(&k)))
            }
            return .object(JSONObject(members, sourceRange: Int(t.start)..<Int(t.end)))
        }
    }
}
