import FHIR

/// Minimizes a FHIR Bundle for a SMART Health Card (spec "Health Cards are Compact").
///
/// `Bundle.type` becomes `collection`; entries get `resource:N` full URLs and every reference
/// that points into the bundle is rewritten to them; `Resource.id`, `meta`, narrative `text`,
/// `CodeableConcept.text` and `Coding.display` are removed. A reference to nothing in the bundle
/// is left as it is and reported.
public struct BundleMinimizer: Sendable {
    /// What could not be minimized.
    public struct Warning: Sendable, Hashable, CustomStringConvertible {
        /// The reference that points outside the bundle.
        public let reference: String
        /// The entry it was found in.
        public let entry: Int

        public var description: String { "entry \(entry): reference \(reference) points to nothing in the bundle and was kept as is" }
    }

    /// Keep `meta.security` (identity-assurance labels, which the spec allows). The spec's own
    /// generator drops all of `meta`, so the default does too.
    public var keepSecurityLabels: Bool

    /// Makes a minimizer; by default it drops all of `meta`, as the spec's own generator does.
    public init(keepSecurityLabels: Bool = false) {
        self.keepSecurityLabels = keepSecurityLabels
    }

    /// Minimizes a bundle.
    public func minimize(_ bundle: JSONObject) throws(IssuingError) -> (bundle: JSONObject, warnings: [Warning]) {
        guard bundle.string("resourceType") == "Bundle" else { throw .notABundle }
        let entries = bundle.list("entry")
        // Every way an entry may be referred to: its fullUrl, urn:uuid, Type/id, or an absolute URL ending in Type/id.
        var targets: [String: String] = [:]
        for (n, e) in entries.enumerated() {
            guard let entry = e.objectValue, let resource = entry.object("resource") else { throw .invalidEntry(n) }
            let short = "resource:\(n)"
            if let url = entry.string("fullUrl") {
                targets[url] = short
                if let (type, id) = Reference(reference: url).typeAndIdentifier { targets["\(type)/\(id)"] = short }
            }
            if let type = resource.string("resourceType"), let id = resource.string("id") {
                targets["\(type)/\(id)"] = short
                targets["urn:uuid:\(id)"] = short
            }
        }
        var warnings: [Warning] = []
        var out: [JSONValue] = []
        for (n, e) in entries.enumerated() {
            let resource = e.objectValue!.object("resource")!
            var stripped = strip(.object(resource), atResourceRoot: true, entry: n, targets: targets, warnings: &warnings)
            if case .object(var o) = stripped, keepSecurityLabels, let security = resource.object("meta")?["security"] {
                o.members.insert(JSONMember("meta", .object(JSONObject([JSONMember("security", security)]))), at: min(1, o.members.count))
                stripped = .object(o)
            }
            out.append(.object(JSONObject([JSONMember("fullUrl", .string("resource:\(n)")), JSONMember("resource", stripped)])))
        }
        let minimized = JSONObject([
            JSONMember("resourceType", .string("Bundle")),
            JSONMember("type", .string("collection")),
            JSONMember("entry", .array(out)),
        ])
        return (minimized, warnings)
    }

    private func strip(_ value: JSONValue, atResourceRoot: Bool, entry: Int, targets: [String: String], warnings: inout [Warning]) -> JSONValue {
        switch value {
        case .array(let a):
            return .array(a.map { strip($0, atResourceRoot: false, entry: entry, targets: targets, warnings: &warnings) })
        case .object(let o):
            let isConcept = o["coding"]?.arrayValue != nil
            let isCoding = !atResourceRoot && o["reference"] == nil && (o["system"] != nil || o["code"]?.stringValue != nil)
            let isResource = atResourceRoot || o.string("resourceType") != nil
            var members: [JSONMember] = []
            for m in o.members {
                if isResource && (m.key == "id" || m.key == "meta") { continue }
                if isResource && m.key == "text" && m.value.objectValue != nil { continue }
                if isConcept && m.key == "text" { continue }
                if isCoding && m.key == "display" { continue }
                if m.key == "reference", let ref = m.value.stringValue {
                    if let short = targets[ref] {
                        members.append(JSONMember("reference", .string(short)))
                    } else {
                        if !ref.hasPrefix("#") { warnings.append(Warning(reference: ref, entry: entry)) }
                        members.append(m)
                    }
                    continue
                }
                members.append(JSONMember(m.key, strip(m.value, atResourceRoot: false, entry: entry, targets: targets, warnings: &warnings)))
            }
            return .object(JSONObject(members))
        default:
            return value
        }
    }
}
