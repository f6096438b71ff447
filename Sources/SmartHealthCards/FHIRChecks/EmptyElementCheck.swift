import FHIR
import VerifiableRecords

/// Finds the first empty element of a bundle: `""`, `[]`, `{}` or `null`.
///
/// FHIR JSON has no empty values — an element without content is left out — so a bundle that
/// carries one is not valid FHIR, and other FHIR software may refuse it or read it differently
/// from us. The one `null` FHIR allows is accepted: the placeholder in a repeating primitive
/// whose `_name` sibling (or `name`, for `_name`) has content at the same index.
public enum EmptyElementCheck {
    /// What kind of empty value was found.
    public enum Emptiness: Sendable, Hashable, CustomStringConvertible {
        case string, array, object, null

        public var description: String {
            switch self {
            case .string: return "an empty string"
            case .array: return "an empty array"
            case .object: return "an empty object"
            case .null: return "null"
            }
        }
    }

    /// The first empty element: where it is, as a path from `Bundle`, and what it is.
    public struct Finding: Sendable, Hashable, CustomStringConvertible {
        /// E.g. `Bundle.entry[0].resource.name[0].given[1]`.
        public let path: String
        /// What was found there.
        public let emptiness: Emptiness

        /// The verification error for it.
        public var issue: VerificationIssue { VerificationIssue(.fhirEmptyElement, description) }

        public var description: String { "\(path) is \(emptiness); FHIR JSON has no empty elements" }
    }

    /// The first empty element in document order, or `nil` when there is none.
    public static func firstEmpty(_ t: JSONTape, bundle: Int) -> Finding? {
        var path: [Step] = []
        guard let emptiness = search(t, bundle, &path) else { return nil }
        var text = "Bundle"
        for step in path {
            switch step {
            case .member(let key): text += "." + (t.string(key) ?? "?")
            case .index(let n): text += "[\(n)]"
            }
        }
        return Finding(path: text, emptiness: emptiness)
    }

    private enum Step {
        /// The key token of an object member.
        case member(Int)
        case index(Int)
    }

    /// The first empty value at or inside token `i`; `path` then leads to it.
    private static func search(_ t: JSONTape, _ i: Int, _ path: inout [Step]) -> Emptiness? {
        switch t.kind(i) {
        case .null: return .null
        case .string: return t.byteRange(i).isEmpty ? .string : nil
        case .number, .true, .false: return nil
        case .array:
            return t.next(i) == i + 1 ? .array : searchElements(t, i, object: nil, key: nil, &path)
        case .object:
            if t.next(i) == i + 1 { return .object }
            var key = i + 1
            while key < t.next(i) {
                let value = key + 1
                path.append(.member(key))
                let found = t.kind(value) == .array && t.next(value) > value + 1
                    ? searchElements(t, value, object: i, key: key, &path)
                    : search(t, value, &path)
                if let found { return found }
                path.removeLast()
                key = t.next(value)
            }
            return nil
        }
    }

    /// The first empty element of a non-empty array, which is member `key` of `object` (if any).
    private static func searchElements(_ t: JSONTape, _ array: Int, object: Int?, key: Int?, _ path: inout [Step]) -> Emptiness? {
        var sibling: [Int] = []
        var siblingRead = false
        var k = array + 1
        var n = 0
        while k < t.next(array) {
            path.append(.index(n))
            if t.kind(k) == .null, let object, let key {
                // Allowed only as a placeholder for an extension the sibling array carries here.
                if !siblingRead {
                    sibling = siblingElements(t, object: object, key: key)
                    siblingRead = true
                }
                guard n < sibling.count, t.kind(sibling[n]) != .null else { return .null }
            } else if let found = search(t, k, &path) {
                return found
            }
            path.removeLast()
            k = t.next(k)
            n += 1
        }
        return nil
    }

    /// The elements of the `_name` sibling of member `name` (or `name` for `_name`); none unless it is an array.
    private static func siblingElements(_ t: JSONTape, object: Int, key: Int) -> [Int] {
        guard let name = t.string(key) else { return [] }
        let other = name.hasPrefix("_") ? String(name.dropFirst()) : "_" + name
        guard let s = t.member(object, named: other), t.kind(s) == .array else { return [] }
        return t.elements(s)
    }
}
