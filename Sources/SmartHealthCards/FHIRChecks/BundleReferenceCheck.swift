import FHIR
import VerifiableRecords

/// Resolves every `reference` element anywhere in a bundle that is meant to point inside it.
///
/// A card is read offline, so what it refers to must travel with it: `resource:N` and `urn:`
/// references must name an entry's `fullUrl`, and `#id` a resource contained in the same entry.
/// A `reference` that is not a string resolves to nothing. Relative (`Organization/1`) and
/// absolute URLs point outside the bundle by definition; FHIR allows them, and the spec's own
/// example 02 carries them, so they are left to ``BundleMinimizationCheck`` as warnings.
public enum BundleReferenceCheck {
    /// A reference that resolves to nothing in the bundle.
    public enum Unresolved: Sendable, Hashable, CustomStringConvertible {
        /// A `reference` element in entry `entry` (`nil`: outside the entries) that is not a string.
        case notAString(entry: Int?)
        /// A `resource:N` or `urn:` reference no entry has as its `fullUrl`.
        case noEntry(String)
        /// A `#id` reference in entry `entry` (`nil`: outside the entries) to no contained resource there.
        case noContainedResource(String, entry: Int?)

        public var description: String {
            switch self {
            case .notAString(let entry): return "a reference \(Self.place(entry))is not a string"
            case .noEntry(let r): return "reference \(r.prefix(80)) is no entry's fullUrl"
            case let .noContainedResource(r, entry): return "reference \(r.prefix(80)) \(Self.place(entry))names no contained resource"
            }
        }

        private static func place(_ entry: Int?) -> String { entry.map { "in entry \($0) " } ?? "outside the entries " }
    }

    /// The distinct unresolved references, in document order.
    public static func check(_ t: JSONTape, bundle: Int) -> [Unresolved] {
        var fullUrls: Set<String> = []
        if let entries = t.member(bundle, "entry") {
            t.forEachElement(entries) { entry in
                if let url = t.member(entry, "fullUrl").flatMap(t.string) { fullUrls.insert(url) }
            }
        }
        var out: [Unresolved] = []
        t.forEachMember(bundle) { key, value in
            guard t.keyEquals(key, "entry"), t.kind(value) == .array else {
                visit(t, value, entry: nil, contained: [], fullUrls: fullUrls, into: &out)
                return
            }
            var n = 0
            t.forEachElement(value) { entry in
                visit(t, entry, entry: n, contained: containedIDs(t, entry: entry), fullUrls: fullUrls, into: &out)
                n += 1
            }
        }
        return out
    }

    /// Checks the `reference` member of every object at or inside token `start`.
    private static func visit(_ t: JSONTape, _ start: Int, entry: Int?, contained: Set<String>, fullUrls: Set<String>, into out: inout [Unresolved]) {
        let end = t.next(start)
        var k = start
        while k < end {
            if t.kind(k) == .object, let value = t.member(k, "reference") {
                var problem: Unresolved? = nil
                if let r = t.string(value) {
                    if r.hasPrefix("#") {
                        if r != "#", !contained.contains(String(r.dropFirst())) { problem = .noContainedResource(r, entry: entry) }
                    } else if r.hasPrefix("resource:") || r.hasPrefix("urn:") {
                        if !fullUrls.contains(r) { problem = .noEntry(r) }
                    }
                } else {
                    problem = .notAString(entry: entry)
                }
                if let problem, !out.contains(problem) { out.append(problem) }
            }
            k += 1
        }
    }

    /// The ids of the resources contained in an entry's resource.
    private static func containedIDs(_ t: JSONTape, entry: Int) -> Set<String> {
        guard let resource = t.member(entry, "resource"), let contained = t.member(resource, "contained") else { return [] }
        var ids: Set<String> = []
        t.forEachElement(contained) { if let id = t.member($0, "id").flatMap(t.string) { ids.insert(id) } }
        return ids
    }

    /// The verification error for what was found, or `nil` when every reference resolves.
    public static func issue(_ unresolved: [Unresolved]) -> VerificationIssue? {
        guard !unresolved.isEmpty else { return nil }
        let shown = unresolved.prefix(5).map(\.description).joined(separator: "; ")
        return VerificationIssue(.fhirReferences, shown + (unresolved.count > 5 ? "; and \(unresolved.count - 5) more" : ""))
    }
}
