import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

/// What building one summary keeps track of: the `urn:uuid:` of every resource going in, the
/// providers' Patient ids, and the Medications, Organizations and Practitioners brought along.
struct SummaryWork {
    let context: @Sendable (FHIRResourceType, String?) async throws -> [StoredResource]
    let admits: @Sendable (JSONObject) -> Bool
    /// `source · Patient · id` of every provider Patient: references to any of them are the
    /// merged Patient.
    var patientIDs = Set<String>()
    /// `source · type · id` → urn.
    private var urns: [String: String] = [:]
    /// `source · id` → urn, for `urn:uuid:` references (documents give entries their uuid as id).
    private var byID: [String: String] = [:]
    /// Entries brought along because an entry points at them.
    private(set) var companions: [JSONValue] = []
    private var kept: [String: [StoredResource]] = [:]

    /// The types an entry's reference may bring along from the store.
    static let companionTypes: Set<String> = ["Medication", "Organization", "Practitioner"]

    init(context: @escaping @Sendable (FHIRResourceType, String?) async throws -> [StoredResource], admits: @escaping @Sendable (JSONObject) -> Bool) {
        self.context = context
        self.admits = admits
    }

    /// The urn of a record going in (made the first time it is asked for).
    @discardableResult
    mutating func urn(for record: ClinicalRecord) -> String {
        assign(record.source.identifier, record.fhirResource.resourceType.rawValue, record.fhirResource.identifier)
    }

    /// The urn of a resource going in by its source, type and id (made the first time).
    mutating func urn(source: String, type: String, id: String) -> String { assign(source, type, id) }

    private mutating func assign(_ source: String, _ type: String, _ id: String) -> String {
        let key = PatientSummaryBuilder.key(source, type, id)
        if let known = urns[key] { return known }
        let urn = "urn:uuid:" + UUID().uuidString.lowercased()
        urns[key] = urn
        byID[source + "\u{1F}" + id] = urn
        return urn
    }

    /// A resource ready for the Bundle: its id the urn's uuid, the provider's `meta` and `text`
    /// left out, every reference resolved or taken out.
    mutating func prepared(_ object: JSONObject, source: String, urn: String, patient: String, bringAlong: Bool = true) async throws -> JSONObject {
        var references = Set<String>()
        Self.collect(.object(object), into: &references)
        var resolved: [String: String] = [:]
        for reference in references.sorted() {
            if let target = try await resolve(reference, source: source, patient: patient, bringAlong: bringAlong) { resolved[reference] = target }
        }
        let kept = JSONObject(object.members.filter { !["resourceType", "id", "meta", "text"].contains($0.key) })
        let rewritten = SummaryReferences.rewrite(.object(kept)) { resolved[$0] }?.objectValue ?? JSONObject()
        let head = [JSONMember("resourceType", object["resourceType"] ?? .null), JSONMember("id", .string(String(urn.dropFirst(9))))]
        return JSONObject(head + rewritten.members)
    }

    private mutating func resolve(_ reference: String, source: String, patient: String, bringAlong: Bool) async throws -> String? {
        guard let (type, id) = SummaryReferences.target(reference) else { return nil }
        if type == "Patient" || patientIDs.contains(PatientSummaryBuilder.key(source, "Patient", id)) { return patient }
        if let type, let known = urns[PatientSummaryBuilder.key(source, type, id)] { return known }
        if type == nil, let known = byID[source + "\u{1F}" + id] { return known }
        guard bringAlong else { return nil }
        for candidate in type.map({ [$0] }) ?? Self.companionTypes.sorted() where Self.companionTypes.contains(candidate) {
            guard let found = try await contextResources(candidate, source).first(where: { $0.resource.identifier == id }),
                found.resource.fhirVersion.fhirRelease == .r4, let object = try? found.resource.json(), admits(object)
            else { continue }
            let urn = assign(source, candidate, id)
            let companion = try await prepared(object, source: source, urn: urn, patient: patient, bringAlong: false)
            companions.append(PatientSummaryBuilder.entry(urn, companion))
            return urn
        }
        return nil
    }

    private mutating func contextResources(_ type: String, _ source: String) async throws -> [StoredResource] {
        let key = type + "\u{1F}" + source
        if let known = kept[key] { return known }
        let found = try await context(FHIRResourceType(type), source)
        kept[key] = found
        return found
    }

    /// Every `reference` text in a value.
    static func collect(_ value: JSONValue, into out: inout Set<String>) {
        switch value {
        case .array(let items): for item in items { collect(item, into: &out) }
        case .object(let object):
            for member in object.members {
                if member.key == "reference", case .string(let text) = member.value, !text.hasPrefix("#") { out.insert(text) } else { collect(member.value, into: &out) }
            }
        default: break
        }
    }
}
