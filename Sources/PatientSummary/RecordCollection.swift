import FHIR
import Foundation
import HealthVocabulary

/// A `collection` Bundle cut from a summary: the Patient and the entries of some sections, as
/// the "share at check-in" profile's patient-shared bundle wants it — `timestamp`, exactly one
/// Patient, `urn:uuid:` full URLs, every reference resolving inside.
///
/// Cutting from the summary (rather than reading the store again) keeps what the summary decided:
/// one entry per fact across providers, current medications only, the merged Patient.
public enum RecordCollection {
    /// What a check-in takes: problems, allergies, current medications, immunizations.
    public static let checkInSections: [SummarySection] = [.problems, .allergies, .medications, .immunizations]

    /// Resources an entry may point at that come along when it does.
    static let companionTypes: Set<String> = ["Medication", "Organization", "Practitioner", "PractitionerRole", "Location"]

    /// The collection of a summary's Patient and the entries of `sections`; `nil` when those
    /// sections hold no entry (a collection needs one besides the Patient).
    public static func cut(_ summary: PatientSummary, sections: [SummarySection], now: Date) -> JSONObject? {
        let entries = summary.bundle.list("entry").compactMap(\.objectValue)
        var byURN: [String: JSONObject] = [:]
        var order: [String] = []
        for entry in entries {
            guard let urn = entry.string("fullUrl"), let resource = entry["resource"]?.objectValue else { continue }
            byURN[urn] = resource
            order.append(urn)
        }
        guard let composition = entries.first?["resource"]?.objectValue, composition.string("resourceType") == "Composition",
            let patientURN = composition["subject"]?.objectValue?.string("reference")
        else { return nil }
        let wanted = Set(sections.map(\.loinc))
        var kept: Set<String> = [patientURN]
        var content = 0
        for section in composition.list("section").compactMap(\.objectValue) {
            let code = section["code"]?.objectValue?.list("coding").first?.objectValue?.string("code")
            guard let code, wanted.contains(code) else { continue }
            for reference in section.list("entry").compactMap({ $0.objectValue?.string("reference") }) where kept.insert(reference).inserted {
                content += 1
            }
        }
        guard content > 0 else { return nil }
        // Companions the kept entries name, and the provenance of kept entries.
        for urn in Array(kept) {
            for target in references(in: .object(byURN[urn] ?? JSONObject([]))) where companionTypes.contains(byURN[target]?.string("resourceType") ?? "") {
                kept.insert(target)
            }
        }
        for urn in order where byURN[urn]?.string("resourceType") == "Provenance" {
            let targets = byURN[urn]?.list("target").compactMap { $0.objectValue?.string("reference") } ?? []
            if targets.contains(where: kept.contains) { kept.insert(urn) }
        }
        var out: [JSONValue] = []
        for urn in order where kept.contains(urn) {
            guard let resource = byURN[urn], case .object(let rewritten)? = SummaryReferences.rewrite(.object(resource), { kept.contains($0) ? $0 : nil })
            else { continue }
            out.append(.object(JSONObject([JSONMember("fullUrl", .string(urn)), JSONMember("resource", .object(rewritten))])))
        }
        return JSONObject([
            JSONMember("resourceType", .string("Bundle")),
            JSONMember("identifier", .object(JSONObject([
                JSONMember("system", .string("urn:ietf:rfc:3986")), JSONMember("value", .string("urn:uuid:" + UUID().uuidString.lowercased())),
            ]))),
            JSONMember("type", .string("collection")),
            JSONMember("timestamp", .string(InstantText.string(now))),
            JSONMember("entry", .array(out)),
        ])
    }

    /// Every `reference` text in a value.
    static func references(in value: JSONValue) -> [String] {
        switch value {
        case .array(let items): return items.flatMap(references)
        case .object(let object):
            return object.members.flatMap { member -> [String] in
                if member.key == "reference", case .string(let text) = member.value { return [text] }
                return references(in: member.value)
            }
        default: return []
        }
    }
}
