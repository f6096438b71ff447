import FHIR
import Foundation

/// Merges the providers' Patient resources into the one Patient the person is to apps.
///
/// The merged Patient has the person's id and, as `meta.lastUpdated`, the latest of the
/// parts'. Lists are united without repeats — every source's identifiers (one per system and
/// value), names, telecoms, addresses, contacts, languages, photos and practitioners — and each
/// extension URL is kept once. Single values (gender, birth date, marital status…) come from
/// the most recently added Patient that has them. `text`, `link` and `contained` are left out:
/// they describe one provider's copy.
public enum PatientMerger {
    /// The list elements united across the parts.
    public static let unitedLists: Set<String> = [
        "identifier", "name", "telecom", "address", "contact", "communication", "photo", "generalPractitioner",
    ]
    /// Elements that describe one provider's copy and are left out.
    public static let dropped: Set<String> = ["resourceType", "id", "meta", "text", "link", "contained"]

    /// The merged Patient, from the parts oldest first (each already served: references
    /// rewritten), and the last time any part was added.
    public static func merge(_ parts: [JSONObject], personID: String, lastUpdated: String, versionId: String? = nil) -> JSONObject {
        var order: [String] = []
        var lists: [String: [JSONValue]] = [:]
        var seen: [String: Set<String>] = [:]
        var singles: [String: JSONValue] = [:]
        var extensions: [String: [(url: String, value: JSONValue)]] = [:]
        for part in parts {
            for m in part.members where !dropped.contains(m.key) {
                if !order.contains(m.key) { order.append(m.key) }
                if m.key == "extension" || m.key == "modifierExtension" {
                    for e in m.value.arrayValue ?? [] {
                        let url = e["url"]?.stringValue ?? canonical(e)
                        if let i = extensions[m.key, default: []].firstIndex(where: { $0.url == url }) {
                            extensions[m.key]![i].value = e
                        } else {
                            extensions[m.key, default: []].append((url, e))
                        }
                    }
                } else if unitedLists.contains(m.key) {
                    for item in m.value.arrayValue ?? [m.value] where seen[m.key, default: []].insert(key(m.key, item)).inserted {
                        lists[m.key, default: []].append(item)
                    }
                } else {
                    singles[m.key] = m.value
                }
            }
        }
        var out = JSONObject([
            JSONMember("resourceType", .string("Patient")), JSONMember("id", .string(personID)),
            JSONMember("meta", .object(JSONObject((versionId.map { [JSONMember("versionId", .string($0))] } ?? []) + [JSONMember("lastUpdated", .string(lastUpdated))]))),
        ])
        for name in order {
            if let list = lists[name] {
                out.members.append(JSONMember(name, .array(list)))
            } else if let list = extensions[name] {
                out.members.append(JSONMember(name, .array(list.map(\.value))))
            } else if let value = singles[name] {
                out.members.append(JSONMember(name, value))
            }
        }
        return out
    }

    /// What makes two list items the same: an identifier's system and value, else the item's JSON.
    private static func key(_ element: String, _ item: JSONValue) -> String {
        if element == "identifier", let value = item["value"]?.stringValue {
            return (item["system"]?.stringValue ?? "") + "|" + value
        }
        return canonical(item)
    }

    /// The JSON of a value with every object's members sorted by name.
    static func canonical(_ value: JSONValue) -> String {
        JSONWriter.minifiedString(sorted(value))
    }

    private static func sorted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let o): return .object(JSONObject(o.members.sorted { $0.key < $1.key }.map { JSONMember($0.key, sorted($0.value)) }))
        case .array(let a): return .array(a.map(sorted))
        default: return value
        }
    }
}
