import CBOR

/// A CBOR item as the member states' harness hands it to Python `jsonschema`: decoded by
/// cbor2 5.x, with an object hook that turns date-time values in maps into text.
///
/// The schema's verdict depends on Python's types, not CBOR's: an integral float is an
/// "integer", a boolean is not, a bignum tag is an integer, a byte string or an unknown tag is
/// no JSON type at all.
enum SchemaInstance {
    case object([CBORMapEntry])
    case array([CBORValue])
    case string(String)
    /// A number; `isInteger` as `jsonschema` decides it (Python `int`, or a float with an
    /// integral value). Doubles are exact enough: the schema only compares against 1 and 9.
    case number(Double, isInteger: Bool)
    case boolean
    case null
    /// Decodes to a Python value that is no JSON type (bytes, `undefined`, simple values, a
    /// date-time outside a map, tags cbor2 does not turn into JSON types).
    case other

    /// The harness's view of `value`; `inMap` says whether it is a map value, where the
    /// harness's object hook turns date-times into `%Y-%m-%dT%H:%M:%SZ` text. Tags that cbor2
    /// refuses are found beforehand by ``DCCSchemaDecodability``; here they count as `other`.
    static func of(_ value: CBORValue, inMap: Bool) -> SchemaInstance {
        switch value {
        case .map(let entries): return .object(entries)
        case .array(let elements): return .array(elements)
        case .text(let text): return .string(text)
        case .unsigned(let n): return .number(Double(n), isInteger: true)
        case .negative(let n): return .number(-1 - Double(n), isInteger: true)
        case .float(let d): return .number(d, isInteger: d.isFinite && d.rounded(.towardZero) == d)
        case .bool: return .boolean
        case .null: return .null
        case .bytes, .undefined, .simple: return .other
        case .tagged(let tag, let content):
            switch tag {
            case 0, 1:
                guard inMap, let moment = DCCDateTimeTag.moment(tag: tag, content: content),
                      let text = DCCDateTimeTag.hookText(moment) else { return .other }
                return .string(text)
            case 2, 3:
                guard case .bytes(let bytes) = content else { return .other }
                let magnitude = bytes.reduce(0.0) { $0 * 256 + Double($1) }
                return .number(tag == 2 ? magnitude : -1 - magnitude, isInteger: true)
            case 55799:
                // cbor2 drops the self-described CBOR tag and keeps its content.
                return of(content, inMap: inMap)
            default:
                return .other
            }
        }
    }

    /// A map key as the Python `str` it decodes to, if it decodes to one.
    static func textKey(_ key: CBORValue) -> String? {
        switch key {
        case .text(let text): return text
        case .tagged(55799, let inner): return textKey(inner)
        default: return nil
        }
    }

    /// The value under a text key, as `dict[key]` finds it: cbor2 keeps the last of keys that decode alike (`"v"` and a self-described `"v"`).
    static func member(_ entries: [CBORMapEntry], _ key: String) -> CBORValue? {
        entries.last { textKey($0.key) == key }?.value
    }
}
