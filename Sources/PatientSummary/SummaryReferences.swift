import FHIR

/// Rewrites the references of a resource going into a summary, so that every one resolves inside
/// the Bundle: a reference the summary can resolve becomes its `urn:uuid:`; any other is taken out
/// (its `display` and `identifier` stay), and a Reference left with nothing to say goes with it.
/// Local references (`#id`, to contained resources) are left as they are.
enum SummaryReferences {
    /// The parts of a reference: its type (when it says one) and the id it names.
    static func target(_ reference: String) -> (type: String?, id: String)? {
        if reference.hasPrefix("urn:uuid:") { return (nil, String(reference.dropFirst(9))) }
        var parts = reference.split(separator: "/").map(String.init)
        if let history = parts.firstIndex(of: "_history") { parts = Array(parts[..<history]) }
        guard parts.count >= 2 else { return nil }
        return (parts[parts.count - 2], parts[parts.count - 1])
    }

    /// The value with its references resolved by `resolve` (a reference's text to a `urn:uuid:`);
    /// `nil` when nothing of it is left.
    static func rewrite(_ value: JSONValue, _ resolve: (String) -> String?) -> JSONValue? {
        switch value {
        case .array(let items):
            let kept = items.compactMap { rewrite($0, resolve) }
            return kept.isEmpty ? nil : .array(kept)
        case .object(let object):
            var members: [JSONMember] = []
            var hadReference = false
            for member in object.members {
                if member.key == "reference", case .string(let text) = member.value {
                    hadReference = true
                    if text.hasPrefix("#") {
                        members.append(member)
                    } else if let resolved = resolve(text) {
                        members.append(JSONMember("reference", .string(resolved)))
                    }
                    continue
                }
                if let kept = rewrite(member.value, resolve) { members.append(JSONMember(member.key, kept)) }
            }
            // A Reference that lost its target and says nothing else (`type` and extensions alone
            // name nothing) is dropped with it.
            if hadReference, !members.contains(where: { ["reference", "display", "identifier"].contains($0.key) }) { return nil }
            return members.isEmpty ? nil : .object(JSONObject(members))
        default:
            return value
        }
    }
}
