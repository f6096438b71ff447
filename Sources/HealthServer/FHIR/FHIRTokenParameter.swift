import Foundation
import FHIR

/// One value of a FHIR token search parameter: `code`, `system|code`, `|code` (no system) or
/// `system|` (any code of the system).
struct FHIRToken: Sendable, Hashable {
    /// The system to match: `nil` for any, `""` for none.
    let system: String?
    /// The code to match: `nil` for any.
    let code: String?

    /// The values of a token parameter: comma-separated, any one of which may match; `\,`,
    /// `\|` and `\\` escape those characters.
    ///
    /// - Throws: ``FHIRRequestError/invalidParameter(name:value:reason:)`` for an empty value.
    static func values(name: String, value: String) throws(FHIRRequestError) -> [FHIRToken] {
        var tokens: [FHIRToken] = []
        for part in split(value, on: ",") {
            let pieces = split(part, on: "|")
            let token: FHIRToken
            switch pieces.count {
            case 1: token = FHIRToken(system: nil, code: pieces[0])
            case 2: token = FHIRToken(system: pieces[0], code: pieces[1].isEmpty ? nil : pieces[1])
            default: throw .invalidParameter(name: name, value: value, reason: "is not a token (code, system|code, |code or system|)")
            }
            guard token.code?.isEmpty != true, token.code != nil || token.system?.isEmpty == false else {
                throw .invalidParameter(name: name, value: value, reason: "has an empty code")
            }
            tokens.append(token)
        }
        return tokens
    }

    /// Splits on a separator that is not escaped with `\`, removing the escapes.
    private static func split(_ text: String, on separator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var escaped = false
        for c in text {
            if escaped {
                current.append(c)
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if c == separator {
                parts.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        parts.append(current)
        return parts
    }

    /// Whether a (system, code) pair from a resource matches. A plain code element (a
    /// `status`, a `gender`) has no system of its own; any system given for it is accepted.
    func matches(system found: String?, code foundCode: String, plain: Bool) -> Bool {
        if let code, code != foundCode { return false }
        guard let system, !plain else { return true }
        return system.isEmpty ? found == nil : found == system
    }

    /// Whether any coding, identifier or code in these elements of a resource matches.
    func matches(_ object: JSONObject, elements: [String]) -> Bool {
        elements.contains { name in object[name].map { matches($0) } ?? false }
    }

    /// Whether a value matches: a CodeableConcept (by its codings), a Coding, an Identifier
    /// (system and value), a plain code, or an array of those.
    func matches(_ value: JSONValue) -> Bool {
        switch value {
        case .string(let s): return matches(system: nil, code: s, plain: true)
        case .array(let list): return list.contains { matches($0) }
        case .object(let o):
            if let codings = o["coding"]?.arrayValue { return codings.contains { matches($0) } }
            let code = o["code"]?.stringValue ?? o["value"]?.stringValue
            return code.map { matches(system: o["system"]?.stringValue, code: $0, plain: false) } ?? false
        default: return false
        }
    }
}

/// FHIR string search: a value matches when some text in the element (at any depth), or a word
/// of it, starts with it, ignoring case and accents.
enum FHIRStringMatch {
    static func matches(_ needle: String, in value: JSONValue) -> Bool {
        let n = fold(needle)
        guard !n.isEmpty else { return true }
        return strings(value).contains { text in
            let t = fold(text)
            return t.hasPrefix(n) || t.split(whereSeparator: { $0 == " " || $0 == "-" }).contains { $0.hasPrefix(n) }
        }
    }

    static func fold(_ s: String) -> String { s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }

    private static func strings(_ value: JSONValue) -> [String] {
        switch value {
        case .string(let s): return [s]
        case .array(let list): return list.flatMap(strings)
        case .object(let o): return o.members.filter { $0.key != "extension" && $0.key != "period" }.flatMap { strings($0.value) }
        default: return []
        }
    }
}
