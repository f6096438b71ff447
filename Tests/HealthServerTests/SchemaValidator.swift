import Foundation

/// A small JSON Schema checker for the subset the OpenAPI document uses: `$ref`, `type`
/// (one or a list, `null` included), `properties`, `required`, `additionalProperties: false`,
/// `items`, `enum`, `minItems` and `format: date-time`.
struct SchemaValidator {
    let document: [String: Any]

    /// The problems found, each with the JSON path; empty when the value matches.
    func problems(_ value: Any, _ schema: [String: Any], path: String = "$") -> [String] {
        if let ref = schema["$ref"] as? String { return problems(value, resolve(ref), path: path) }
        var out: [String] = []
        if let type = schema["type"] {
            let allowed = (type as? [String]) ?? [type as! String]
            guard allowed.contains(where: { Self.matches(value, type: $0) }) else { return ["\(path): expected \(allowed), got \(Swift.type(of: value))"] }
        }
        if let options = schema["enum"] as? [Any], !options.contains(where: { Self.equal($0, value) }) { out.append("\(path): \(value) is not one of \(options)") }
        if schema["format"] as? String == "date-time", let s = value as? String, (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(s)) == nil {
            out.append("\(path): \(s) is not a date-time")
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil { out.append("\(path): lacks \(name)") }
            for (name, v) in object {
                if let p = properties[name] {
                    out += problems(v, p, path: "\(path).\(name)")
                } else if schema["additionalProperties"] as? Bool == false {
                    out.append("\(path): unexpected \(name)")
                }
            }
        }
        if let array = value as? [Any] {
            if let min = schema["minItems"] as? Int, array.count < min { out.append("\(path): fewer than \(min) items") }
            if let items = schema["items"] as? [String: Any] {
                for (i, v) in array.enumerated() { out += problems(v, items, path: "\(path)[\(i)]") }
            }
        }
        return out
    }

    /// The object a local reference (`#/components/...`) points at.
    func resolve(_ ref: String) -> [String: Any] {
        var node: Any = document
        for part in ref.dropFirst(2).split(separator: "/") { node = (node as! [String: Any])[String(part)]! }
        return node as! [String: Any]
    }

    static func matches(_ v: Any, type: String) -> Bool {
        switch type {
        case "null": return v is NSNull
        case "string": return v is String
        case "object": return v is [String: Any]
        case "array": return v is [Any]
        case "boolean": return v is Bool
        case "integer": return v is Int
        case "number": return v is Int || v is Double
        default: return false
        }
    }

    static func equal(_ a: Any, _ b: Any) -> Bool {
        if a is NSNull || b is NSNull { return a is NSNull && b is NSNull }
        if let x = a as? String, let y = b as? String { return x == y }
        return false
    }
}
