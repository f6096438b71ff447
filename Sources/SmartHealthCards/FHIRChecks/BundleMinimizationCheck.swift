import FHIR
import VerifiableRecords

/// Checks a card's FHIR Bundle the way the spec asks issuers to minimize it: references in
/// `resource:N` form, and no ids, meta (except `meta.security`), narrative,
/// `CodeableConcept.text` or `Coding.display`.
///
/// Entries without a resource and duplicate `fullUrl`s are errors; anything merely not minimized
/// is a warning (the spec's example 02 is deliberately not minimized and still valid). Whether
/// references resolve, and whether `fullUrl`s are positional, is ``BundleReferenceCheck``'s and
/// ``BundleStructureCheck``'s to say.
public enum BundleMinimizationCheck {
    /// Findings for a bundle given as a tree.
    public static func check(_ bundle: JSONObject) -> (errors: [VerificationIssue], warnings: [VerificationIssue]) {
        let bytes = JSONWriter.minified(.object(bundle))
        guard let tape = try? JSONTape(bytes) else { return ([VerificationIssue(.fhirBundle, "the bundle is not JSON")], []) }
        return check(tape, bundle: tape.root)
    }

    /// Findings for the bundle at token `bundle` of a tape.
    public static func check(_ t: JSONTape, bundle: Int) -> (errors: [VerificationIssue], warnings: [VerificationIssue]) {
        var errors: [VerificationIssue] = []
        var counts = Counts()
        var fullUrls: [String] = []
        var references: [Int] = []
        if t.member(bundle, "id") != nil { counts.ids += 1 }
        if let entries = t.member(bundle, "entry") {
            var k = 0
            t.forEachElement(entries) { entry in
                defer { k += 1 }
                guard t.kind(entry) == .object else {
                    errors.append(VerificationIssue(.fhirBundle, "entry \(k) is not an object"))
                    return
                }
                var fullUrl: Int? = nil
                var resource: Int? = nil
                t.forEachMember(entry) { key, value in
                    if t.keyEquals(key, "fullUrl") { fullUrl = value } else if t.keyEquals(key, "resource") { resource = value }
                }
                if let url = fullUrl.flatMap(t.string) {
                    if fullUrls.contains(url) { errors.append(VerificationIssue(.fhirReferences, "fullUrl \(url) appears twice")) }
                    fullUrls.append(url)
                }
                guard let resource, t.kind(resource) == .object else {
                    errors.append(VerificationIssue(.fhirBundle, "entry \(k) has no resource"))
                    return
                }
                var hasType = false
                t.forEachMember(resource) { key, value in
                    if t.keyEquals(key, "resourceType") {
                        hasType = t.kind(value) == .string
                    } else if t.keyEquals(key, "id") {
                        counts.ids += 1
                    } else if t.keyEquals(key, "meta") {
                        var onlySecurity = t.kind(value) == .object
                        t.forEachMember(value) { metaKey, _ in if !t.keyEquals(metaKey, "security") { onlySecurity = false } }
                        if !onlySecurity { counts.meta += 1 }
                    } else if t.keyEquals(key, "text"), t.kind(value) == .object {
                        counts.narrative += 1
                    }
                }
                if !hasType { errors.append(VerificationIssue(.fhirBundle, "entry \(k) has no resourceType")) }
                walk(t, resource, counts: &counts, references: &references)
            }
        }
        for r in references {
            guard let ref = t.string(r), !ref.isEmpty else { continue }
            if !isShort(ref), !ref.hasPrefix("#") { counts.longReferences += 1 }
        }
        return (errors, counts.warnings)
    }

    private struct Counts {
        var ids = 0, meta = 0, narrative = 0, conceptText = 0, codingDisplay = 0, longReferences = 0

        var warnings: [VerificationIssue] {
            var out: [VerificationIssue] = []
            // Messages are only built for counts that are not zero: most cards have none.
            func add(_ n: Int, _ what: @autoclosure () -> String) {
                if n > 0 { out.append(VerificationIssue(.fhirNotMinimized, "\(n) \(what())")) }
            }
            add(ids, ids == 1 ? "resource carries an id" : "resources carry an id")
            add(meta, "resource meta other than meta.security")
            add(narrative, "narrative text element\(narrative == 1 ? "" : "s")")
            add(conceptText, "CodeableConcept.text element\(conceptText == 1 ? "" : "s")")
            add(codingDisplay, "Coding.display element\(codingDisplay == 1 ? "" : "s")")
            add(longReferences, "reference\(longReferences == 1 ? " is" : "s are") not resource:N")
            return out
        }
    }

    private static func isShort(_ s: String) -> Bool {
        guard s.hasPrefix("resource:") else { return false }
        let n = s.utf8.dropFirst(9)
        return !n.isEmpty && n.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// Visits every object inside a resource once, in document order (the tape is flat).
    private static func walk(_ t: JSONTape, _ start: Int, counts: inout Counts, references: inout [Int]) {
        let end = t.next(start)
        var k = start
        while k < end {
            if t.kind(k) == .object {
                // What a Reference, a CodeableConcept or a Coding carries, in one pass over the members.
                var hasReference = false, hasCoding = false, hasText = false, hasSystemOrCode = false, hasDisplay = false
                t.forEachMember(k) { key, value in
                    if t.keyEquals(key, "reference") {
                        if t.kind(value) == .string { references.append(value) }
                        hasReference = true
                    } else if t.keyEquals(key, "coding") {
                        hasCoding = t.kind(value) == .array
                    } else if t.keyEquals(key, "text") {
                        hasText = true
                    } else if t.keyEquals(key, "system") {
                        hasSystemOrCode = true
                    } else if t.keyEquals(key, "code") {
                        if t.kind(value) == .string { hasSystemOrCode = true }
                    } else if t.keyEquals(key, "display") {
                        hasDisplay = true
                    }
                }
                if hasCoding && hasText { counts.conceptText += 1 }
                if hasSystemOrCode && hasDisplay && !hasReference { counts.codingDisplay += 1 }
            }
            k += 1
        }
    }
}
