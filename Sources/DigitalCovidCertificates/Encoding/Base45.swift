import Foundation

/// Base45 (RFC 9285), the encoding between a DCC's compressed bytes and its alphanumeric QR code.
///
/// Decoding is strict: only the 45 characters of QR alphanumeric mode, no length that leaves a
/// lone character, and no group whose value is too large for its bytes — so one text has one
/// reading, and a corrupted code is refused rather than decoded to other bytes.
public enum Base45 {
    /// The alphabet, in value order.
    static let alphabet: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    /// Each byte's value, or −1 for a byte outside the alphabet.
    static let values: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = Int8(i) }
        return table
    }()

    /// Decodes base45 text.
    public static func decode(_ text: String) throws(Base45Error) -> [UInt8] {
        var text = text
        // withUTF8 rethrows untyped errors; a Result carries the typed one out.
        return try text.withUTF8 { utf8 in Result { () throws(Base45Error) in try decode(UnsafeRawBufferPointer(utf8)) } }.get()
    }

    /// Decodes base45 text given as its bytes.
    public static func decode(_ input: UnsafeRawBufferPointer) throws(Base45Error) -> [UInt8] {
        let n = input.count
        guard n % 3 != 1 else { throw .length(n) }
        let count = n / 3 * 2 + (n % 3 == 2 ? 1 : 0)
        var failure: Base45Error? = nil
        let out = [UInt8](unsafeUninitializedCapacity: count) { o, initialized in
            values.withUnsafeBufferPointer { table in
                // A bad character shows as a negative value; the sum of a group is then
                // negative too, so one test per group finds it and the slow path names it.
                var i = 0
                var j = 0
                while i + 3 <= n {
                    let a = Int(table[Int(input[i])]), b = Int(table[Int(input[i + 1])]), c = Int(table[Int(input[i + 2])])
                    guard a | b | c >= 0 else { failure = Self.badCharacter(input, from: i); return }
                    let v = a + 45 * b + 2025 * c
                    guard v <= 0xFFFF else { failure = .overflow(offset: i); return }
                    o[j] = UInt8(v >> 8)
                    o[j + 1] = UInt8(v & 0xFF)
                    i += 3
                    j += 2
                }
                if i < n {
                    let a = Int(table[Int(input[i])]), b = Int(table[Int(input[i + 1])])
                    guard a | b >= 0 else { failure = Self.badCharacter(input, from: i); return }
                    let v = a + 45 * b
                    guard v <= 0xFF else { failure = .overflow(offset: i); return }
                    o[j] = UInt8(v)
                }
            }
            initialized = failure == nil ? count : 0
        }
        if let failure { throw failure }
        return out
    }

    static func badCharacter(_ input: UnsafeRawBufferPointer, from start: Int) -> Base45Error {
        var i = start
        while i < input.count, values[Int(input[i])] >= 0 { i += 1 }
        return .character(offset: i, byte: input[min(i, input.count - 1)])
    }

    /// Encodes bytes as base45 text.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 2 * 3 + 2)
        var i = 0
        while i + 2 <= bytes.count {
            var v = Int(bytes[i]) << 8 | Int(bytes[i + 1])
            for _ in 0..<3 {
                out.append(alphabet[v % 45])
                v /= 45
            }
            i += 2
        }
        if i < bytes.count {
            let v = Int(bytes[i])
            out.append(alphabet[v % 45])
            out.append(alphabet[v / 45])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Why base45 text does not decode.
public enum Base45Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// A length of 3k+1: one character cannot stand for a byte.
    case length(Int)
    /// A character outside the alphabet (lowercase letters included).
    case character(offset: Int, byte: UInt8)
    /// A group whose value does not fit its bytes (over 65535 for three characters, 255 for two).
    case overflow(offset: Int)

    public var description: String {
        switch self {
        case .length(let n): return "base45 text of \(n) characters leaves one alone (the length must not be 3k+1)"
        case .character(let offset, let byte):
            let shown = (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "0x%02X", byte)
            return "character \(shown) at offset \(offset) is not in the base45 alphabet"
        case .overflow(let offset): return "the group at offset \(offset) is too large for its bytes"
        }
    }
}
