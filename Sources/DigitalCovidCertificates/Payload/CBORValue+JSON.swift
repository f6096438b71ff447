import CBOR
import FHIR
import Foundation

extension CBORValue {
    /// The item as JSON, as the DCC's JSON schema sees it: integers and floats are numbers,
    /// byte strings base64, date tags (0, 1) their value; map keys that are not text are written
    /// as text (no DCC payload has any).
    public var json: JSONValue {
        switch self {
        case .unsigned(let n): return .number(JSONNumber(uncheckedText: String(n)))
        case .negative(let n): return .number(JSONNumber(uncheckedText: n == .max ? "-18446744073709551616" : "-\(n + 1)"))
        case .bytes(let b): return .string(Data(b).base64EncodedString())
        case .text(let s): return .string(s)
        case .array(let a): return .array(a.map(\.json))
        case .map(let m):
            return .object(JSONObject(m.map { entry in
                let key: String
                switch entry.key {
                case .text(let s): key = s
                default: key = Self.keyText(entry.key)
                }
                return JSONMember(key, entry.value.json)
            }))
        case .tagged(_, let item): return item.json
        case .bool(let b): return .bool(b)
        case .null, .undefined: return .null
        case .simple(let v): return .number(JSONNumber(Int(v)))
        case .float(let d):
            guard d.isFinite else { return .null }
            if d == d.rounded(), abs(d) < 1e15 { return .number(JSONNumber(uncheckedText: String(Int64(d)))) }
            return .number(JSONNumber(uncheckedText: "\(d)"))
        }
    }

    /// A non-text map key as text: an integer's digits, else a placeholder.
    static func keyText(_ key: CBORValue) -> String {
        key.int64.map(String.init) ?? "?"
    }

    /// An item from JSON (for issuing): integral numbers become integers, others floats.
    public init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let n):
            let text = n.description
            if let i = Int64(text) {
                self = .integer(i)
            } else {
                self = .float(Double(text) ?? .nan)
            }
        case .string(let s): self = .text(s)
        case .array(let a): self = .array(a.map(CBORValue.init(json:)))
        case .object(let o): self = .map(o.members.map { CBORMapEntry(.text($0.key), CBORValue(json: $0.value)) })
        }
    }
}
