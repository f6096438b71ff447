import ClinicalRecords
import FHIR
import HealthStoreCore

/// A file read and ready to store: its resources and, for a bundle, the organization it came from.
struct PreparedFile: Sendable {
    let producer: any ResourceProducer
    var organizationName: String? = nil
}

/// The organization a bundle's records came from, to name its source after: for a document (an
/// IPS), the Organization its Composition names as custodian, else as author; otherwise the
/// Organization its encounters name most as `serviceProvider`, else the first with a name.
enum OrganizationName {
    static func of(_ items: [ClassifiedResource]) -> String? {
        var names: [String: String] = [:]
        var firstNamed: String? = nil
        var counts: [String: Int] = [:]
        var documentParties: [String] = []
        for item in items {
            switch item.resource.resourceType.rawValue {
            case "Organization":
                guard let o = try? item.resource.json(), let name = o.string("name"), !name.isEmpty else { continue }
                names[item.resource.identifier] = name
                // Conditional references (`Organization?identifier=system|value`) name it by identifier.
                for identifier in o.list("identifier").compactMap(\.objectValue) {
                    if let value = identifier.string("value") { names[value] = names[value] ?? name }
                }
                if firstNamed == nil { firstNamed = name }
            case "Composition":
                // A document (an IPS) says whose it is: its custodian, else its author.
                guard let o = try? item.resource.json() else { continue }
                let parties = [o["custodian"]] + o.list("author").map { Optional($0) }
                for party in parties.compactMap({ $0.flatMap(Reference.init(json:)) }) {
                    if let id = Self.targetID(party) { documentParties.append(id) }
                }
            case "Encounter":
                guard let o = try? item.resource.json(), let provider = o["serviceProvider"].flatMap(Reference.init(json:)) else { continue }
                if let (_, id) = provider.typeAndIdentifier {
                    counts[id, default: 0] += 1
                } else if let reference = provider.reference, reference.hasPrefix("urn:uuid:") {
                    counts[String(reference.dropFirst(9)), default: 0] += 1
                } else if let reference = provider.reference, let bar = reference.lastIndex(of: "|"), reference.hasPrefix("Organization?identifier=") {
                    counts[String(reference[reference.index(after: bar)...]), default: 0] += 1
                }
            default: continue
            }
        }
        if let party = documentParties.lazy.compactMap({ names[$0] }).first { return party }
        let busiest = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.lazy.compactMap { names[$0.key] }.first
        return busiest ?? firstNamed
    }

    /// The id a reference names: `Type/id`'s id, or a `urn:uuid:`'s uuid (documents give their
    /// entries the same id).
    static func targetID(_ reference: Reference) -> String? {
        if let (_, id) = reference.typeAndIdentifier { return id }
        if let text = reference.reference, text.hasPrefix("urn:uuid:") { return String(text.dropFirst(9)) }
        return nil
    }
}
