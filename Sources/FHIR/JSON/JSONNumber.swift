import Foundation

/// A JSON number kept as the exact text it was written with.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The number exactly as written, e.g. `1.50`, `6.0` or `1e2`.
    public let text: String

    /// Wraps text the caller vouches is a valid JSON number (the reader only makes valid ones).
    @inlinable public init(uncheckedText text: String) {
        self.text = text
    }

    /// Wraps text after checking it against the JSON number grammar.
    public init?(_ text: String) {
        var copy = text
        let ok = copy.withUTF8 { !$0.isEmpty && JSONScanner.numberEnd($0, from: 0) == $0.count }
        guard ok else { return nil }
        self.text = text
    }

    /// Makes a number from an integer.
    public init(_ value: Int) {
        self.text = String(value)
    }

    /// The value as a `Double` (may round).
    public var doubleValue: Double { Double(text) ?? .nan }

    /// The value as a `Decimal`, exact for the digits FHIR uses.
    public var decimalValue: Decimal? { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) }

    /// The value as an `Int` when it is written as an integer that fits.
    public var intValue: Int? { Int(text) }

    /// Whether the text has a fraction or an exponent.
    public var isInteger: Bool { !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) }

    public var description: String { text }
}

enum JSONScanner {
    /// The end of a JSON number beginning at `start`, or nil if the grammar is not met.
    @inline(__always)
    static func numberEnd(_ p: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var i = start
        let n = p.count
        if i < n, p[i] == UInt8(ascii: "-") { i += 1 }
        guard i < n else { return nil }
        if p[i] == UInt8(ascii: "0") {
            i += 1
        } else if p[i] >= UInt8(ascii: "1"), p[i] <= UInt8(ascii: "9") {
            i += 1
            while i < n, p[i] &- UInt8(ascii: "0") < 10 { i += 1 }
        } else {
            return nil
        }
        if i < n, p[i] == UInt8(ascii: ".") {
            i += 1
            let digits = i
            while i < n, p[i] &- UInt8(ascii: "0") < 10 { i += 1 }
            if i == digits { return nil }
        }
        if i < n, p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E") {
            i += 1
            if i < n, p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") { i += 1 }
            let digits = i
            while i < n, p[i] &- UInt8(ascii: "0") < 10 { i += 1 }
            if i == digits { return nil }
        }
        return i
    }
}
