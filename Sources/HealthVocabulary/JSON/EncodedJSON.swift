import FHIR
import Foundation

/// JSON as both front ends write it: plain values through the project's exact-text
/// ``JSONWriter``, and stored bytes (a FHIR resource as it arrived) spliced in untouched, so a
/// decimal such as `5.40` reaches the reader as it was imported.
public indirect enum EncodedJSON: Sendable {
    /// A plain value.
    case value(JSONValue)
    /// Bytes that already are one JSON value (a stored FHIR resource).
    case raw(Data)
    /// An object, members in order.
    case object([(String, EncodedJSON)])
    /// An array; its elements may mix plain values and raw stored bytes.
    case array([EncodedJSON])

    public static func string(_ s: String) -> EncodedJSON { .value(.string(s)) }
    public static func string(_ s: String?) -> EncodedJSON { s.map { .value(.string($0)) } ?? .value(.null) }
    public static func int(_ n: Int) -> EncodedJSON { .value(.number(JSONNumber(n))) }
    public static func bool(_ b: Bool) -> EncodedJSON { .value(.bool(b)) }
    /// A date as ``InstantText`` writes it, or `null`.
    public static func date(_ d: Date?) -> EncodedJSON { d.map { .value(.string(InstantText.string($0))) } ?? .value(.null) }
    public static let null = EncodedJSON.value(.null)

    /// The minified UTF-8 bytes: what the server sends.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(to: &out)
        return out
    }

    /// Indented text for people at a terminal: what the CLI prints.
    ///
    /// Spliced bytes are read (keeping numbers' text and members' order) so they indent with the
    /// rest; if stored bytes ever fail to read, the whole answer is written minified instead,
    /// which is still the same JSON.
    public var prettyText: String {
        guard let value = try? jsonValue() else { return String(decoding: bytes, as: UTF8.self) }
        return JSONWriter.pretty(value)
    }

    /// The same JSON as a ``JSONValue`` tree.
    public func jsonValue() throws(JSONError) -> JSONValue {
        switch self {
        case .value(let v): return v
        case .raw(let d): return try JSONReader().read(d)
        case .object(let members):
            var out: [JSONMember] = []
            out.reserveCapacity(members.count)
            for (key, value) in members { out.append(JSONMember(key, try value.jsonValue())) }
            return .object(JSONObject(out))
        case .array(let items):
            var out: [JSONValue] = []
            out.reserveCapacity(items.count)
            for item in items { out.append(try item.jsonValue()) }
            return .array(out)
        }
    }

    /// Appends the minified bytes.
    public func write(to out: inout [UInt8]) {
        switch self {
        case .value(let v): JSONWriter.write(v, to: &out)
        case .raw(let d): d.withUnsafeBytes { out.append(contentsOf: $0) }  // one copy, not byte by byte
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (k, (key, value)) in members.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (k, item) in items.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
    }
}
