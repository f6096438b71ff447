import CBOR
import FHIR
import Foundation

@testable import DigitalCovidCertificates

/// The harness's `_ordered`: a form of a decoded payload in which map keys and list elements
/// are sorted and date-times are written one way, so two payloads compare equal when the harness
/// would call them equal.
enum HarnessOrdered {
    static func form(_ v: CBORValue) -> String {
        switch v {
        case .map(let entries):
            let members = entries.map { "\(key($0.key))=\(form($0.value))" }.sorted()
            return "{" + members.joined(separator: ",") + "}"
        case .array(let a): return "[" + a.map(form).sorted().joined(separator: ",") + "]"
        case .text(let s): return "s:" + date(s)
        case .tagged(0, .text(let s)): return "s:" + (MemberStateCase.isoDate(s).map(utc) ?? date(s))
        case .tagged(1, let epoch):
            let seconds: Double
            switch epoch {
            case .float(let d): seconds = d
            default: seconds = Double(epoch.int64 ?? 0)
            }
            return "s:" + utc(Date(timeIntervalSince1970: seconds.rounded(.down)))
        case .tagged(_, let item): return form(item)
        case .unsigned, .negative: return "n:\(v.int64.map(String.init) ?? "big")"
        case .float(let d): return d == d.rounded() && abs(d) < 1e15 ? "n:\(Int64(d))" : "n:\(d)"
        case .bool(let b): return b ? "true" : "false"
        case .null, .undefined: return "null"
        case .bytes(let b): return "b:" + b.map { String($0, radix: 16) }.joined()
        case .simple(let s): return "simple:\(s)"
        }
    }

    static func key(_ k: CBORValue) -> String {
        if let n = k.int64 { return "i\(n)" }
        return k.text ?? form(k)
    }

    static func form(json: JSONValue) -> String {
        form(CBORValue(json: json))
    }

    /// A date or date-time string as `YYYY-MM-DDTHH:MM:SSZ` with its local fields (the harness
    /// formats without converting zones); anything else unchanged.
    static func date(_ s: String) -> String {
        let c = Array(s.utf8)
        func digits(_ r: Range<Int>) -> Bool { r.upperBound <= c.count && r.allSatisfy { (48...57).contains(c[$0]) } }
        guard c.count >= 10, digits(0..<4), c[4] == 45, digits(5..<7), c[7] == 45, digits(8..<10) else { return s }
        let day = String(decoding: c[0..<10], as: UTF8.self)
        if c.count == 10 { return day + "T00:00:00Z" }
        guard c[10] == UInt8(ascii: "T") || c[10] == UInt8(ascii: " "), digits(11..<13), c.count >= 16, c[13] == 58, digits(14..<16) else { return s }
        let hm = String(decoding: c[11..<16], as: UTF8.self)
        let sec = c.count >= 19 && c[16] == 58 && digits(17..<19) ? String(decoding: c[17..<19], as: UTF8.self) : "00"
        return "\(day)T\(hm):\(sec)Z"
    }

    static func utc(_ d: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let p = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: d)
        func two(_ n: Int?) -> String { String(format: "%02d", n ?? 0) }
        return "\(p.year ?? 0)-\(two(p.month))-\(two(p.day))T\(two(p.hour)):\(two(p.minute)):\(two(p.second))Z"
    }
}
