import Foundation

/// Reads JSON text into ``JSONValue``s, keeping number text and member order exactly.
///
/// The reader is strict about the grammar (RFC 8259), enforces ``JSONLimits`` and reports
/// the byte offset of every error.
public struct JSONReader: Sendable {
    /// The limits this reader enforces.
    public var limits: JSONLimits

    /// Makes a reader with the given limits.
    public init(limits: JSONLimits = .default) {
        self.limits = limits
    }

    /// Reads one JSON value that fills the whole document (surrounding whitespace allowed).
    public func read(_ data: Data) throws(JSONError) -> JSONValue {
        guard data.count <= limits.maxDocumentBytes else {
            throw JSONError(.documentTooLarge(size: data.count, limit: limits.maxDocumentBytes), at: 0)
        }
        let result: Result<JSONValue, JSONError> = data.withUnsafeBytes { raw in
            let p = raw.bindMemory(to: UInt8.self)
            return Result { () throws(JSONError) in try read(p) }
        }
        return try result.get()
    }

    /// Reads one JSON value from bytes.
    public func read(_ bytes: some ContiguousBytes) throws(JSONError) -> JSONValue {
        let result: Result<JSONValue, JSONError> = bytes.withUnsafeBytes { raw in
            let p = raw.bindMemory(to: UInt8.self)
            return Result { () throws(JSONError) in try read(p) }
        }
        return try result.get()
    }

    /// Reads one JSON value from a string.
    public func read(_ text: String) throws(JSONError) -> JSONValue {
        try read(Data(text.utf8))
    }

    /// Reads one JSON value from a buffer of UTF-8 bytes.
    public func read(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONValue {
        guard bytes.count <= limits.maxDocumentBytes else {
            throw JSONError(.documentTooLarge(size: bytes.count, limit: limits.maxDocumentBytes), at: 0)
        }
        var parser = JSONParser(bytes: bytes, limits: limits)
        return try parser.parseDocument()
    }
}

/// The recursive-descent parser behind ``JSONReader``; depth is bounded by the limits.
struct JSONParser {
    let p: UnsafeBufferPointer<UInt8>
    let limits: JSONLimits
    var i = 0
    var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) {
        self.p = bytes
        self.limits = limits
    }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        if p.count >= 3, p[0] == 0xEF, p[1] == 0xBB, p[2] == 0xBF { throw JSONError(.byteOrderMark, at: 0) }
        skipWhitespace()
        guard i < p.count else { throw JSONError(.empty, at: i) }
        let value = try parseValue()
        skipWhitespace()
        guard i == p.count else { throw JSONError(.trailingCharacters, at: i) }
        return value
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while i < p.count {
            let c = p[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i += 1
        }
    }

    mutating func parseValue() throws(JSONError) -> JSONValue {
        guard i < p.count else { throw JSONError(.unexpectedEnd, at: i) }
        switch p[i] {
        case UInt8(ascii: "{"): return .object(try parseObject())
        case UInt8(ascii: "["): return .array(try parseArray())
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw JSONError(.unexpectedByte(p[i]), at: i)
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let n = literal.utf8CodeUnitCount
        let lit = literal.utf8Start
        for k in 0..<n {
            guard i + k < p.count else { throw JSONError(.unexpectedEnd, at: i + k) }
            guard p[i + k] == lit[k] else { throw JSONError(.unexpectedByte(p[i + k]), at: i + k) }
        }
        i += n
    }

    mutating func enter() throws(JSONError) {
        depth += 1
        if depth > limits.maxDepth { throw JSONError(.tooDeep(limit: limits.maxDepth), at: i) }
    }

    mutating func parseObject() throws(JSONError) -> JSONObject {
        let start = i
        try enter()
        i += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if i < p.count, p[i] == UInt8(ascii: "}") {
            i += 1
            depth -= 1
            return JSONObject(members, sourceRange: start..<i)
        }
        while true {
            skipWhitespace()
            guard i < p.count else { throw JSONError(.unexpectedEnd, at: i) }
            guard p[i] == UInt8(ascii: "\"") else { throw JSONError(.unexpectedByte(p[i]), at: i) }
            let key = try parseString()
            skipWhitespace()
            guard i < p.count else { throw JSONError(.unexpectedEnd, at: i) }
            guard p[i] == UInt8(ascii: ":") else { throw JSONError(.unexpectedByte(p[i]), at: i) }
            i += 1
            skipWhitespace()
            let value = try parseValue()
            if members.count >= limits.maxContainerElements {
                throw JSONError(.tooManyElements(limit: limits.maxContainerElements), at: i)
            }
            members.append(JSONMember(key, value))
            skipWhitespace()
            guard i < p.count else { throw JSONError(.unexpectedEnd, at: i) }
            if p[i] == UInt8(ascii: ",") { i += 1; continue }
            if p[i] == UInt8(ascii: "}") { i += 1; break }
            throw JSONError(.unexpectedByte(p[i]), at: i)
        }
        depth -= 1
        return JSONObject(members, sourceRange: start..<i)
    }

    mutating func parseArray() throws(JSONError) -> [JSONValue] {
        try enter()
        i += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if i < p.count, p[i] == UInt8(ascii: "]") {
            i += 1
            depth -= 1
            return elements
        }
        while true {
            skipWhitespace()
            let value = try parseValue()
            if elements.count >= limits.maxContainerElements {
                throw JSONError(.tooManyElements(limit: limits.maxContainerElements), at: i)
            }
            elements.append(value)
            skipWhitespace()
            guard i < p.count else { throw JSONError(.unexpectedEnd, at: i) }
            if p[i] == UInt8(ascii: ",") { i += 1; continue }
            if p[i] == UInt8(ascii: "]") { i += 1; break }
            throw JSONError(.unexpectedByte(p[i]), at: i)
        }
        depth -= 1
        return elements
    }

    mutating func parseNumber() throws(JSONError) -> JSONNumber {
        let start = i
        guard let end = JSONScanner.numberEnd(p, from: i) else { throw JSONError(.invalidNumber, at: start) }
        i = end
        let text = String(decoding: UnsafeBufferPointer(rebasing: p[start..<end]), as: UTF8.self)
        return JSONNumber(uncheckedText: text)
    }

    mutating func parseString() throws(JSONError) -> String {
        let open = i
        i += 1
        let start = i
        var ascii = true
        // Fast path: no escapes. Most FHIR strings are plain.
        while i < p.count {
            let c = p[i]
            if c == UInt8(ascii: "\"") {
                let length = i - start
                if length > limits.maxStringBytes { throw JSONError(.stringTooLong(limit: limits.maxStringBytes), at: open) }
                let slice = UnsafeBufferPointer(rebasing: p[start..<i])
                i += 1
                if ascii { return String(decoding: slice, as: UTF8.self) }
                guard let s = String(validating: slice, as: UTF8.self) else { throw JSONError(.invalidString, at: open) }
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw JSONError(.invalidString, at: i) }
            if c >= 0x80 { ascii = false }
            i += 1
        }
        guard i < p.count else { throw JSONError(.unexpectedEnd, at: i) }
        return try parseEscapedString(open: open, start: start)
    }

    mutating func parseEscapedString(open: Int, start: Int) throws(JSONError) -> String {
        var buffer = [UInt8](UnsafeBufferPointer(rebasing: p[start..<i]))
        while i < p.count {
            let c = p[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                guard let s = String(validating: buffer, as: UTF8.self) else { throw JSONError(.invalidString, at: open) }
                return s
            }
            if c < 0x20 { throw JSONError(.invalidString, at: i) }
            if i - start > limits.maxStringBytes { throw JSONError(.stringTooLong(limit: limits.maxStringBytes), at: open) }
            if c != UInt8(ascii: "\\") {
                buffer.append(c)
                i += 1
                continue
            }
            guard i + 1 < p.count else { throw JSONError(.unexpectedEnd, at: i + 1) }
            let e = p[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "\""): buffer.append(0x22)
            case UInt8(ascii: "\\"): buffer.append(0x5C)
            case UInt8(ascii: "/"): buffer.append(0x2F)
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try readHex4(at: i)
                i += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 6 <= p.count, p[i] == UInt8(ascii: "\\"), p[i + 1] == UInt8(ascii: "u") else {
                        throw JSONError(.invalidEscape, at: i - 6)
                    }
                    let low = try readHex4(at: i + 2)
                    guard (0xDC00...0xDFFF).contains(low) else { throw JSONError(.invalidEscape, at: i) }
                    i += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw JSONError(.invalidEscape, at: i - 6)
                }
                guard let u = Unicode.Scalar(scalar) else { throw JSONError(.invalidEscape, at: i - 6) }
                buffer.append(contentsOf: UTF8.encode(u)!)
            default:
                throw JSONError(.invalidEscape, at: i - 2)
            }
        }
        throw JSONError(.unexpectedEnd, at: i)
    }

    func readHex4(at offset: Int) throws(JSONError) -> UInt32 {
        guard offset + 4 <= p.count else { throw JSONError(.unexpectedEnd, at: p.count) }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = p[offset + k]
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: throw JSONError(.invalidEscape, at: offset + k)
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }
}
