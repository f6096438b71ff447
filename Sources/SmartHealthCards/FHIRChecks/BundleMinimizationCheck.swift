import FHIR

/// Checks a card's FHIR Bundle the way the spec asks issuers to build it: `resource:N` full URLs
/// that every reference resolves to, and no ids, meta (except `meta.security`), narrative,
/// `CodeableConcept.text` or `Coding.display`.
///
/// Dangling or duplicate `resource:N` targets are errors; anything merely not minimized is a
/// warning (the spec's example 02 is deliberately not minimized and still valid).
public enum BundleMinimizationCheck {
    /// Findings for a bundle.
    public static func check(_ bundle: JSONObject) -> (errors: [VerificationIssue], warnings: [VerificationIssue]) {
        var errors: [VerificationIssue] = []
        var counts = Counts()
        let entries = bundle.list("entry")
        var fullUrls = Set<String>()
        for (k, e) in entries.enumerated() {
            guard let entry = e.objectValue else {
                errors.append(VerificationIssue(.fhirBundle, "entry \(k) is not an object"))
                continue
            }
            if let url = entry.string("fullUrl") {
                if !fullUrls.insert(url).inserted { errors.append(VerificationIssue(.fhirReferences, "fullUrl \(url) appears twice")) }
                if !isShort(url) { counts.longURLs += 1 }
            } else {
                counts.missingFullUrl += 1
            }
            guard let resource = entry.object("resource") else {
                errors.append(VerificationIssue(.fhirBundle, "entry \(k) has no resource"))
                continue
            }
            if resource.string("resourceType") == nil { errors.append(VerificationIssue(.fhirBundle, "entry \(k) has no resourceType")) }
            if resource["id"] != nil { counts.ids += 1 }
            if let meta = resource.object("meta"), meta.keys != ["security"] { counts.meta += 1 }
            if resource["text"]?.objectValue != nil { counts.narrative += 1 }
        }
        if bundle["id"] != nil { counts.ids += 1 }
        var references: [String] = []
        for e in entries {
            guard let resource = e.objectValue?.object("resource") else { continue }
            walk(.object(resource), depth: 0, counts: &counts, references: &references)
        }
        var dangling: [String] = []
        for ref in references {
            if isShort(ref) {
                if !fullUrls.contains(ref), !dangling.contains(ref) { dangling.append(ref) }
            } else if !ref.hasPrefix("#") {
                counts.longReferences += 1
            }
        }
        if !dangling.isEmpty {
            errors.append(VerificationIssue(.fhirReferences, "reference\(dangling.count == 1 ? "" : "s") \(dangling.joined(separator: ", ")) point\(dangling.count == 1 ? "s" : "") to no entry of the bundle"))
        }
        return (errors, counts.warnings)
    }

    private struct Counts {
        var ids = 0, meta = 0, narrative = 0, conceptText = 0, codingDisplay = 0, longURLs = 0, longReferences = 0, missingFullUrl = 0

        var warnings: [VerificationIssue] {
            var out: [VerificationIssue] = []
            func add(_ n: Int, _ what: String) {
                if n > 0 { out.append(VerificationIssue(.fhirNotMinimized, "\(n) \(what)")) }
            }
            add(ids, ids == 1 ? "resource carries an id" : "resources carry an id")
            add(meta, "resource meta other than meta.security")
            add(narrative, "narrative text element\(narrative == 1 ? "" : "s")")
            add(conceptText, "CodeableConcept.text element\(conceptText == 1 ? "" : "s")")
            add(codingDisplay, "Coding.display element\(codingDisplay == 1 ? "" : "s")")
            add(longURLs, "fullUrl\(longURLs == 1 ? " is" : "s are") not resource:N")
            add(longReferences, "reference\(longReferences == 1 ? " is" : "s are") not resource:N")
            add(missingFullUrl, "entr\(missingFullUrl == 1 ? "y has" : "ies have") no fullUrl")
            return out
        }
    }

    private static func isShort(_ s: String) -> Bool {
        guard s.hasPrefix("resource:") else { return false }
        let n = s.utf8.dropFirst(9)
        return !n.isEmpty && n.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    private static func walk(_ value: JSONValue, depth: Int, counts: inout Counts, references: inout [String]) {
        guard depth < 64 else { return }
        switch value {
        case .object(let o):
            if let ref = o["reference"]?.stringValue { references.append(ref) }
            if o["coding"]?.arrayValue != nil, o["text"] != nil { counts.conceptText += 1 }
            if o["system"] != nil || o["code"]?.stringValue != nil, o["display"] != nil, o["reference"] == nil { counts.codingDisplay += 1 }
            for m in o.members {
                walk(m.value, depth: depth + 1, counts: &counts, references: &references)
            }
        case .array(let a):
            for v in a { walk(v, depth: depth + 1, counts: &counts, references: &references) }
        default:
            break
        }
    }
}
