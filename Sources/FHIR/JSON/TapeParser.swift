/// Builds a ``JSONTape``: validates the grammar (RFC 8259) and the limits, records one token per value.
struct TapeParser {
    let p: UnsafeBufferPointer<UInt8>
    let limits: JSONLimits
    var i = 0
    var depth = 0
    var tokens: [JSONTape.Token] = []

    init(bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) {
        self.p = bytes
        self.limits = limits
        tokens.reserveCapacity(max(16, bytes.count / 5))
    }

    mutating func parseDocument() throws(JSONError) -> [JSONTape.Token] {
        if p.count >= 3, p[0] == 0xEF, p[1] == 0xBB, p[2] == 0xBF { throw JSONError(.byteOrderMark, at: 0) }
        skipWhitespace()
        guard i < p.count else { throw JSONError(.empty, at: i) }
        try parseValue()
        skipWhitespace()
        guard i == p.count else { throw JSONError(.trailingCharacters, at: i) }
        return tokens
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while i < p.count {
            let c = p[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i += 1
        }
    }

    @inline(__always)
    mutating func append(_ kind: JSONTape.Kind, _ start: Int, _ end: Int, flags: UInt8 = 0) {
        tokens.append(JSONTape.Token(kind: kind, flags: flags, start: UInt32(start), end: UInt32(end), next: UInt32(tokens.count + 1)))
    }

    mutating func parseValue() throws(JSONError) {
        guard i < p.count else { throw JSONError(.unexpectedEnd, at: i) }
        switch p[i] {
        case UInt8(ascii: "{"): try parseObject()
        case UInt8(ascii: "["): try parseArray()
        case UInt8(ascii: "\""): try parseString()
        case UInt8(ascii: "t"): try expectLiteral("true", .true)
        case UInt8(ascii: "f"): try expectLiteral("false", .false)
        case UInt8(ascii: "n"): try expectLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = i
            guard let end = JSONScanner.numberEnd(p, from: i) else { throw JSONError(.invalidNumber, at: start) }
            i = end
            append(.number, start, end)
        default: throw JSONError(.unexpectedByte(p[i]), at: i)
        }
    }

    mutating func expectLiteral(_ literal: StaticString, _ kind: JSONTape.Kind) throws(JSONError) {
        let n = literal.utf8CodeUnitCount
        let lit = literal.utf8Start
        let start = i
        for k in 0..<n {
            guard i + k < p.count else { throw JSONError(.unexpectedEnd, at: i + k) }
            guard p[i + k] == lit[k] else { throw JSONError(.unexpectedByte(p[i + k]), at: i + k) }
        }
        i += n
        append(kind, start, i)
    }

    mutating func enter() throws(JSONError) {
        depth += 1
        if depth > limits.maxDepth { throw JSONError(.tooDeep(limit: limits.maxDepth), at: i) }
    }

    mutating func parseObject() throws(JSONError) {
        let start = i
        let index = tokens.count
        try enter()
        append(.object, start, start)
        i += 1
        skipWhitespace()
        if i < p.count, p[i] == UInt8(ascii: "}") {
            i += 1
        } else {
            var count = 0
            while true {
                skipWhitespace()
                guard i < p.count else { throw JSONError(.unexpectedEnd, at: i) }
                guard p[i] == UInt8(ascii: "\"") else { throw JSONError(.unexpectedByte(p[i]), at: i) }
                try parseString()
                skipWhitespace()
                guard i < p.count else { throw JSONError(.unexpectedEnd, at: i) }
                guard p[i] == UInt8(ascii: ":") else { throw JSONError(.unexpectedByte(p[i]), at: i) }
                i += 1
                skipWhitespace()
                try parseValue()
                if count >= limits.maxContainerElements { throw JSONError(.tooManyElements(limit: limits.maxContainerElements), at: i) }
                count += 1
                skipWhitespace()
                guard i < p.count else { throw JSONError(.unexpectedEnd, at: i) }
                if p[i] == UInt8(ascii: ",") { i += 1; continue }
                if p[i] == UInt8(ascii: "}") { i += 1; break }
                throw JSONError(.unexpectedByte(p[i]), at: i)
            }
        }
        depth -= 1
        tokens[index].end = UInt32(i)
        tokens[index].next = UInt32(tokens.count)
    }

    mutating func parseArray() throws(JSONError) {
        let start = i
        let index = tokens.count
        try enter()
        append(.array, start, start)
        i += 1
        skipWhitespace()
        if i < p.count, p[i] == UInt8(ascii: "]") {
            i += 1
        } else {
            var count = 0
            while true {
                skipWhitespace()
                try parseValue()
                if count >= limits.maxContainerElements { throw JSONError(.tooManyElements(limit: limits.maxContainerElements), at: i) }
                count += 1
                skipWhitespace()
                guard i < p.count else { throw JSONError(.unexpectedEnd, at: i) }
                if p[i] == UInt8(ascii: ",") { i += 1; continue }
                if p[i] == UInt8(ascii: "]") { i += 1; break }
                throw JSONError(.unexpectedByte(p[i]), at: i)
            }
        }
        depth -= 1
        tokens[index].end = UInt32(i)
        tokens[index].next = UInt32(tokens.count)
    }

    /// The first index at or after `i` whose 8-byte word holds a quote, a backslash, a control
    /// byte or a non-ASCII byte (or that is too close to the end for a whole word). The tests
    /// are exact for "any byte in the word", so nothing that ends a run is ever skipped.
    @inline(__always)
    static func plainRun(_ p: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = p.baseAddress else { return start }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var i = start
        while i + 8 <= p.count {
            let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let quote = w ^ (ones &* 0x22)
            let backslash = w ^ (ones &* 0x5C)
            // A zero byte in `quote` or `backslash`; a byte below 0x20; a byte of 0x80 or more.
            let stops = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((w &- ones &* 0x20) & ~w) | w
            if stops & highs != 0 { break }
            i += 8
        }
        return i
    }

    mutating func parseString() throws(JSONError) {
        let open = i
        i += 1
        let start = i
        var flags: UInt8 = 0
        while i < p.count {
            // Plain ASCII text is the common case (base64 attachments, narrative): skip it eight
            // bytes at a time, then byte by byte up to what ends the run.
            i = Self.plainRun(p, from: i)
            while i < p.count {
                let b = p[i]
                if b == 0x22 || b == 0x5C || b < 0x20 || b >= 0x80 { break }
                i += 1
            }
            guard i < p.count else { break }
            let c = p[i]
            if c == UInt8(ascii: "\"") {
                if i - start > limits.maxStringBytes { throw JSONError(.stringTooLong(limit: limits.maxStringBytes), at: open) }
                if flags & 2 != 0, !UTF8Validation.isValid(UnsafeBufferPointer(rebasing: p[start..<i])) {
                    throw JSONError(.invalidString, at: open)
                }
                append(.string, start, i, flags: flags)
                i += 1
                return
            }
            if c < 0x20 { throw JSONError(.invalidString, at: i) }
            if c >= 0x80 {
                flags |= 2
                i += 1
                continue
            }
            if c == UInt8(ascii: "\\") {
                flags |= 1
                if i - start > limits.maxStringBytes { throw JSONError(.stringTooLong(limit: limits.maxStringBytes), at: open) }
                guard i + 1 < p.count else { throw JSONError(.unexpectedEnd, at: i + 1) }
                let e = p[i + 1]
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 2
                case UInt8(ascii: "u"):
                    let at = i
                    guard let scalar = JSONEscapes.hex4OrNil(p, i + 2) else {
                        if i + 6 > p.count { throw JSONError(.unexpectedEnd, at: p.count) }
                        throw JSONError(.invalidEscape, at: firstNonHex(from: i + 2))
                    }
                    i += 6
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard i + 6 <= p.count, p[i] == UInt8(ascii: "\\"), p[i + 1] == UInt8(ascii: "u"),
                            let low = JSONEscapes.hex4OrNil(p, i + 2)
                        else { throw JSONError(.invalidEscape, at: at) }
                        guard (0xDC00...0xDFFF).contains(low) else { throw JSONError(.invalidEscape, at: i) }
                        i += 6
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw JSONError(.invalidEscape, at: at)
                    }
                default:
                    throw JSONError(.invalidEscape, at: i)
                }
                continue
            }
            i += 1
        }
        throw JSONError(.unexpectedEnd, at: i)
    }

    /// The first byte of a `\u` escape's four that is not a hex digit.
    func firstNonHex(from k: Int) -> Int {
        var m = k
        while m < min(k + 4, p.count) {
            let c = p[m]
            let isHex = (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)
            if !isHex { return m }
            m += 1
        }
        return m
    }
}

/// Checks UTF-8 well-formedness (RFC 3629) without allocating.
enum UTF8Validation {
    static func isValid(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = p.count
        while i < n {
            let b = p[i]
            if b < 0x80 { i += 1; continue }
            func cont(_ k: Int) -> Bool { i + k < n && p[i + k] & 0xC0 == 0x80 }
            switch b {
            case 0xC2...0xDF:
                guard cont(1) else { return false }
                i += 2
            case 0xE0:
                guard i + 1 < n, (0xA0...0xBF).contains(p[i + 1]), cont(2) else { return false }
                i += 3
            case 0xE1...0xEC, 0xEE...0xEF:
                guard cont(1), cont(2) else { return false }
                i += 3
            case 0xED:
                guard i + 1 < n, (0x80...0x9F).contains(p[i + 1]), cont(2) else { return false }
                i += 3
            case 0xF0:
                guard i + 1 < n, (0x90...0xBF).contains(p[i + 1]), cont(2), cont(3) else { return false }
                i += 4
            case 0xF1...0xF3:
                guard cont(1), cont(2), cont(3) else { return false }
                i += 4
            case 0xF4:
                guard i + 1 < n, (0x80...0x8F).contains(p[i + 1]), cont(2), cont(3) else { return false }
                i += 4
            default:
                return false
            }
        }
        return true
    }
}
