import FHIR
import Foundation

/// JSON for responses: values written with the project's exact-text ``JSONWriter``, and
/// stored bytes (a FHIR resource, as it arrived) spliced in as they are, so decimals such as
/// `1.50` reach the app untouched.
indirect enum ResponseJSON: Sendable {
    /// A plain value.
    case value(JSONValue)
    /// Bytes that already are one JSON value (a stored FHIR resource).
    case raw(Data)
    /// An object, members in order.
    case object([(String, ResponseJSON)])
    /// An array.
    case array([ResponseJSON])

    static func string(_ s: String) -> ResponseJSON { .value(.string(s)) }
    static func string(_ s: String?) -> ResponseJSON { s.map { .value(.string($0)) } ?? .value(.null) }
    static func int(_ n: Int) -> ResponseJSON { .value(.number(JSONNumber(n))) }
    static func bool(_ b: Bool) -> ResponseJSON { .value(.bool(b)) }
    static func date(_ d: Date?) -> ResponseJSON { d.map { .value(.string(ISO8601.string($0))) } ?? .value(.null) }
    static let null = ResponseJSON.value(.null)

    /// The minified UTF-8 bytes.
    var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(to: &out)
        return out
    }

    func write(to out: inout [UInt8]) {
        switch self {
        case .value(let v): JSONWriter.write(v, to: &out)
        case .raw(let d): out.append(contentsOf: d)
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

/// ISO 8601 instants with milliseconds, in UTC, as every date in the API is written.
enum ISO8601 {
    static func string(_ d: Date) -> String {
        d.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }

    /// Reads an instant (with or without fractional seconds) or a FHIR date (`2020`,
    /// `2020-03-04`) as the period it covers: an instant covers itself.
    static func period(_ s: String) -> DateInterval? {
        if let d = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(s) { return DateInterval(start: d, duration: 0) }
        if let d = try? Date.ISO8601FormatStyle().parse(s) { return DateInterval(start: d, duration: 0) }
        return FHIRDate(s)?.interval
    }
}
