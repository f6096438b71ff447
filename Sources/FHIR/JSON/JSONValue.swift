/// A JSON value that keeps every number's exact text and every object's member order.
///
/// FHIR gives meaning to the text of a decimal (`1.50` is not `1.5`), and SMART Health
/// Cards are signed over exact bytes, so the reader never turns numbers into binary
/// floating point on the way in.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The object, when this value is one.
    @inlinable public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The array, when this value is one.
    @inlinable public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The string, when this value is one.
    @inlinable public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number, when this value is one.
    @inlinable public var numberValue: JSONNumber? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// The boolean, when this value is one.
    @inlinable public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// A boolean read the way real exports write it: `true`, or the string `"true"`.
    ///
    /// Some DSTU2 exports put `"true"` where the spec wants a boolean; accepting it here keeps
    /// the importer lenient without making the reader itself lax.
    public var lenientBoolValue: Bool? {
        switch self {
        case .bool(let b): return b
        case .string("true"): return true
        case .string("false"): return false
        default: return nil
        }
    }

    /// Whether this value is `null`.
    @inlinable public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The member of an object by key; `nil` for other values or a missing key.
    @inlinable public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The element of an array by index; `nil` for other values or an index out of range.
    @inlinable public subscript(index: Int) -> JSONValue? {
        guard case .array(let a) = self, a.indices.contains(index) else { return nil }
        return a[index]
    }
}
