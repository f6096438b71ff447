import FHIR
import Foundation

/// One medication of the person's list: the records that are the same medication, across
/// providers and kinds of record (orders, statements, dispenses), consolidated.
public struct MedicationEntry: Sendable, Hashable {
    /// Where the medication stands, by its latest record.
    public enum Status: String, Sendable, Hashable, Codable {
        /// Being taken (or ordered and not ended).
        case active
        /// Stopped before its course ended (or cancelled).
        case stopped
        /// Its course ended (or it was dispensed).
        case completed
        /// The records say nothing usable.
        case unknown
    }

    /// An identifier stable while the same records make the entry: from what matched them.
    public let id: String
    /// The name shown: an RxNorm display when a record gives one, else the latest record's name.
    public let name: String
    /// Every RxNorm code the records carry, sorted.
    public let rxNormCodes: [String]
    /// The dose form, when a referenced Medication names one.
    public let form: String?
    /// The sources the records came from, sorted.
    public let sources: [RecordSource]
    /// The earliest and latest clinical dates of the records.
    public let firstDate: FHIRDate?
    public let latestDate: FHIRDate?
    public let status: Status
    /// The records behind it, oldest first.
    public let records: [RecordIdentity]
}

/// The person's medications consolidated from their medication records (MedicationRequest,
/// MedicationStatement, MedicationDispense, MedicationAdministration, MedicationOrder): one entry
/// per concept. Records
/// are the same medication when they share an RxNorm code, or — where their codes differ — the
/// same coded ingredients and strengths (from a referenced Medication). A record that matches
/// nothing by a code stays an entry of its own: two medications are never merged on a name.
public struct MedicationList: Sendable {
    public let entries: [MedicationEntry]

    /// Builds the list. `medication` resolves a `medicationReference` of a record (its source and
    /// the reference) to the Medication resource, when the store holds it; contained ones are
    /// found in the record itself.
    public init(records: [ClinicalRecord], medication: (String, String) -> JSONObject? = { _, _ in nil }) {
        struct Item {
            let record: ClinicalRecord
            let object: JSONObject
            let concept: JSONObject?
            let medication: JSONObject?
            let keys: [String]
        }
        var items: [Item] = []
        for record in records where record.clinicalType == .medication {
            guard let object = try? record.fhirResource.json() else { continue }
            var resolved: JSONObject?
            if let reference = object["medicationReference"]?.objectValue?.string("reference") {
                if reference.hasPrefix("#") {
                    let id = String(reference.dropFirst())
                    resolved = object.list("contained").compactMap(\.objectValue).first { $0.string("id") == id }
                } else {
                    resolved = medication(record.source.identifier, reference)
                }
            }
            let concept = object["medicationCodeableConcept"]?.objectValue ?? resolved?["code"]?.objectValue
            var keys = Self.rxNorm(concept).map { "rx:" + $0 }
            if let ingredients = Self.ingredientKey(resolved) { keys.append("in:" + ingredients) }
            items.append(Item(record: record, object: object, concept: concept, medication: resolved, keys: keys))
        }

        // Records sharing a key are one medication (union–find over the keys).
        var parent = Array(items.indices)
        func find(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        var firstWithKey: [String: Int] = [:]
        for (i, item) in items.enumerated() {
            for key in item.keys {
                if let j = firstWithKey[key] { parent[find(i)] = find(j) } else { firstWithKey[key] = i }
            }
        }
        var groups: [Int: [Int]] = [:]
        for i in items.indices { groups[find(i), default: []].append(i) }

        var entries: [MedicationEntry] = []
        for members in groups.values {
            let group = members.map { items[$0] }.sorted {
                ($0.record.clinicalDate?.date ?? .distantPast, $0.record.identity.description) < ($1.record.clinicalDate?.date ?? .distantPast, $1.record.identity.description)
            }
            let codes = Set(group.flatMap { Self.rxNorm($0.concept) }).sorted()
            let keys = Set(group.flatMap(\.keys)).sorted()
            let latest = group.last!
            let named = group.reversed().lazy.compactMap { Self.rxNormDisplay($0.concept) }.first
            let form = group.lazy.compactMap { $0.medication?["form"]?.objectValue.flatMap(Self.text) }.first
            var sources: [String: RecordSource] = [:]
            for item in group { sources[item.record.source.identifier] = item.record.source }
            entries.append(MedicationEntry(
                id: Self.identifier(keys.first ?? "record:" + latest.record.identity.description),
                name: named ?? latest.record.displayName, rxNormCodes: codes, form: form,
                sources: sources.values.sorted { $0.identifier < $1.identifier },
                firstDate: group.compactMap { $0.record.clinicalDate }.min { $0.date < $1.date },
                latestDate: group.compactMap { $0.record.clinicalDate }.max { $0.date < $1.date },
                status: Self.status(latest.record.fhirResource.resourceType.rawValue, latest.object),
                records: group.map(\.record.identity)))
        }
        self.entries = entries.sorted { ($0.status == .active ? 0 : 1, $0.name.lowercased(), $0.id) < ($1.status == .active ? 0 : 1, $1.name.lowercased(), $1.id) }
    }

    /// The RxNorm codes of a concept.
    static func rxNorm(_ concept: JSONObject?) -> [String] {
        (concept?.list("coding") ?? []).compactMap(\.objectValue).filter { $0.string("system") == CodeSystem.rxNorm }.compactMap { $0.string("code") }
    }

    static func rxNormDisplay(_ concept: JSONObject?) -> String? {
        (concept?.list("coding") ?? []).compactMap(\.objectValue).first { $0.string("system") == CodeSystem.rxNorm && $0.string("display") != nil }?.string("display")
    }

    static func text(_ concept: JSONObject) -> String? {
        concept.string("text") ?? concept.list("coding").compactMap(\.objectValue).first { $0.string("display") != nil }?.string("display")
    }

    /// A Medication's coded ingredients with their strengths, sorted: `code@value unit/value unit;…`;
    /// `nil` unless every ingredient is coded.
    static func ingredientKey(_ medication: JSONObject?) -> String? {
        guard let ingredients = medication?.list("ingredient").compactMap(\.objectValue), !ingredients.isEmpty else { return nil }
        var parts: [String] = []
        for ingredient in ingredients {
            guard let code = rxNorm(ingredient["itemCodeableConcept"]?.objectValue).first else { return nil }
            let strength = ingredient["strength"]?.objectValue
            func quantity(_ key: String) -> String {
                guard let q = strength?[key]?.objectValue else { return "" }
                return (q["value"]?.numberValue?.text ?? "") + " " + (q.string("code") ?? q.string("unit") ?? "")
            }
            parts.append(code + "@" + quantity("numerator") + "/" + quantity("denominator"))
        }
        return parts.sorted().joined(separator: ";")
    }

    /// A record's status, in the list's words.
    static func status(_ type: String, _ o: JSONObject) -> MedicationEntry.Status {
        let status = o.string("status") ?? ""
        switch type {
        case "MedicationDispense":
            return ["completed", "in-progress", "preparation"].contains(status) ? .completed : status == "cancelled" || status == "stopped" ? .stopped : .unknown
        case "MedicationAdministration":
            // A dose given: in progress is being taken; not given, or stopped, stopped.
            switch status {
            case "in-progress", "on-hold": return .active
            case "completed": return .completed
            case "not-done", "stopped", "entered-in-error": return .stopped
            default: return .unknown
            }
        default:
            switch status {
            case "active", "on-hold", "intended": return .active
            case "stopped", "cancelled", "not-taken", "entered-in-error": return .stopped
            case "completed": return .completed
            default: return .unknown
            }
        }
    }

    /// 16 hex characters of FNV-1a over a key: stable across runs, not a secret.
    static func identifier(_ key: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return String(format: "%016llx", hash)
    }
}
