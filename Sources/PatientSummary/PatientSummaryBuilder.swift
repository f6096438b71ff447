import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary

/// Builds the person's International Patient Summary (HL7 FHIR IPS 2.0.1) from the consolidated
/// records: one `document` Bundle whose Composition (LOINC 60591-5) has a section per kind of
/// fact — active problems and past illnesses, allergies, current medications, immunizations,
/// the latest results and vital signs per code, procedures — each with a readable narrative.
///
/// The same fact from two providers (same type, code, date and value) appears once. Every
/// reference resolves inside the Bundle: the providers' Patients are the one merged Patient,
/// entries point at each other, a Medication, Organization or Practitioner the store holds from
/// the same source comes along, and any other reference is taken out (its display stays). Only
/// FHIR R4 records go in (the IPS is R4).
public struct PatientSummaryBuilder: Sendable {
    /// The records of a clinical type.
    let records: @Sendable (RecordQuery) async throws -> [ClinicalRecord]
    /// Context resources (Patients, Medications, Organizations, Practitioners) of a type and source.
    let context: @Sendable (FHIRResourceType, String?) async throws -> [StoredResource]
    /// Whether a resource may go in at all (an app's token scopes); everything by default.
    let admits: @Sendable (JSONObject) -> Bool
    /// The time the document is dated.
    public let now: Date
    /// The most entries of results, vital signs and procedures (the newest are kept).
    public var maxPerSection = 100

    /// Makes a builder over the person's whole store.
    public init(store: any RecordReading, now: Date = Date()) {
        records = { try await store.records($0) }
        context = { try await store.contextResources(ofType: $0, source: $1) }
        admits = { _ in true }
        self.now = now
    }

    /// Makes a builder over what an app may read: its grants and watermarks (``AppView``, which
    /// audits the reads), narrowed by `admits` (its token's scopes). A section the app may not
    /// read is built as an empty one is.
    public init(view: AppView, now: Date, admits: @escaping @Sendable (JSONObject) -> Bool = { _ in true }) {
        records = { try await view.records($0) }
        context = { try await view.contextResources(ofType: $0, source: $1) }
        self.admits = admits
        self.now = now
    }

    /// Builds the summary.
    public func build() async throws -> PatientSummary {
        var work = SummaryWork(context: context, admits: admits)
        let patientURN = "urn:uuid:" + UUID().uuidString.lowercased()
        let authorURN = "urn:uuid:" + UUID().uuidString.lowercased()
        let patientParts = try await context("Patient", nil)
            .filter { $0.resource.fhirVersion.fhirRelease == .r4 && ((try? $0.resource.json()).map(admits) ?? false) }
            .sorted { $0.addedDate < $1.addedDate }
        for part in patientParts { work.patientIDs.insert(Self.key(part.source.identifier, "Patient", part.resource.identifier)) }

        // Choose each section's records, then give every chosen record its urn, so that entries
        // can point at each other whatever their order.
        var chosen: [(SummarySection, [ClinicalRecord])] = []
        var alsoFrom: [RecordIdentity: [RecordSource]] = [:]
        var byType: [ClinicalType: [ClinicalRecord]] = [:]
        for section in SummarySection.allCases {
            guard let type = section.clinicalType else { continue }
            if byType[type] == nil {
                byType[type] = try await records(RecordQuery(type: type)).filter {
                    $0.fhirResource.fhirVersion.fhirRelease == .r4 && ((try? $0.fhirResource.json()).map(admits) ?? false)
                }
            }
            let selection = try select(section, byType[type] ?? [])
            chosen.append((section, selection.records))
            alsoFrom.merge(selection.alsoFrom) { a, _ in a }
        }
        for (_, records) in chosen {
            for record in records { work.urn(for: record) }
        }

        var sections: [JSONValue] = []
        var counts: [PatientSummary.SectionCount] = []
        var entries: [JSONValue] = []
        var provenances: [JSONValue] = []
        for (section, records) in chosen {
            var references: [JSONValue] = []
            var rows: [[String]] = []
            for record in records {
                guard var object = try? record.fhirResource.json() else { continue }
                let urn = work.urn(for: record)
                object = try await work.prepared(object, source: record.source.identifier, urn: urn, patient: patientURN)
                if section == .medications, !object.keys.contains(where: { $0.hasPrefix("medication") }) {
                    // The Medication it named is not in the store: say what it was in words.
                    object = JSONObject(object.members + [JSONMember("medicationCodeableConcept", .object(JSONObject([JSONMember("text", .string(record.displayName))])))])
                }
                if (section == .results || section == .vitalSigns), !Self.hasValue(object) { continue }
                entries.append(Self.entry(urn, object))
                if let others = alsoFrom[record.identity] { provenances.append(Self.provenance(of: urn, from: [record.source] + others, at: now)) }
                references.append(.object(JSONObject([JSONMember("reference", .string(urn))])))
                rows.append(Self.row(section, record, object))
            }
            // Optional sections with nothing in them are left out; required ones say why.
            if references.isEmpty && !section.isRequired { continue }
            counts.append(PatientSummary.SectionCount(section: section, count: references.count))
            var members = [
                JSONMember("title", .string(section.title)),
                JSONMember("code", Self.loinc(section.loinc, section.loincDisplay)),
                JSONMember("text", Self.narrative(SummaryNarrative.div(rows, header: Self.header(section), empty: "No information available."))),
            ]
            if references.isEmpty {
                members.append(JSONMember("emptyReason", .object(JSONObject([JSONMember("coding", .array([.object(JSONObject([
                    JSONMember("system", .string("http://terminology.hl7.org/CodeSystem/list-empty-reason")),
                    JSONMember("code", .string("unavailable")), JSONMember("display", .string("Unavailable")),
                ]))]))]))))
            } else {
                members.append(JSONMember("entry", .array(references)))
            }
            sections.append(.object(JSONObject(members)))
        }
        let devices = try await devices(&work, patientURN: patientURN)
        if !devices.references.isEmpty {
            counts.append(PatientSummary.SectionCount(section: .devices, count: devices.references.count))
            entries.append(contentsOf: devices.entries)
            sections.append(.object(JSONObject([
                JSONMember("title", .string(SummarySection.devices.title)),
                JSONMember("code", Self.loinc(SummarySection.devices.loinc, SummarySection.devices.loincDisplay)),
                JSONMember("text", Self.narrative(SummaryNarrative.div(devices.rows, header: Self.header(.devices), empty: "No information available."))),
                JSONMember("entry", .array(devices.references)),
            ])))
        }

        let patient = try await work.prepared(
            Self.patient(patientParts, id: String(patientURN.dropFirst(9)), now: now), source: patientParts.last?.source.identifier ?? "", urn: patientURN,
            patient: patientURN)
        let stamp = InstantText.string(now)
        let composition = JSONObject([
            JSONMember("resourceType", .string("Composition")),
            JSONMember("id", .string(UUID().uuidString.lowercased())),
            JSONMember("status", .string("final")),
            JSONMember("type", Self.loinc("60591-5", "Patient summary Document")),
            JSONMember("subject", .object(JSONObject([JSONMember("reference", .string(patientURN))]))),
            JSONMember("date", .string(stamp)),
            JSONMember("author", .array([.object(JSONObject([JSONMember("reference", .string(authorURN))]))])),
            JSONMember("title", .string("Patient Summary as of " + String(stamp.prefix(10)))),
            JSONMember("section", .array(sections)),
        ])
        let author = JSONObject([
            JSONMember("resourceType", .string("Device")),
            JSONMember("id", .string(String(authorURN.dropFirst(9)))),
            JSONMember("deviceName", .array([.object(JSONObject([JSONMember("name", .string("HealthRecords")), JSONMember("type", .string("user-friendly-name"))]))])),
        ])
        let compositionURN = "urn:uuid:" + (composition["id"]?.stringValue ?? "")
        let all = [Self.entry(compositionURN, composition), Self.entry(patientURN, patient), Self.entry(authorURN, author)] + entries + work.companions + provenances
        let bundle = JSONObject([
            JSONMember("resourceType", .string("Bundle")),
            JSONMember("identifier", .object(JSONObject([
                JSONMember("system", .string("urn:ietf:rfc:3986")), JSONMember("value", .string("urn:uuid:" + UUID().uuidString.lowercased())),
            ]))),
            JSONMember("type", .string("document")),
            JSONMember("timestamp", .string(stamp)),
            JSONMember("entry", .array(all)),
        ])
        return PatientSummary(bundle: bundle, sections: counts)
    }

    // MARK: Choosing

    /// The records a section takes, newest first, each fact once; for a fact more than one
    /// provider sent, the other providers of the record kept.
    func select(_ section: SummarySection, _ records: [ClinicalRecord]) throws -> (records: [ClinicalRecord], alsoFrom: [RecordIdentity: [RecordSource]]) {
        let newestFirst = records.sorted { ($0.clinicalDate?.date ?? .distantPast) > ($1.clinicalDate?.date ?? .distantPast) }
        var seen: [String: RecordIdentity] = [:]
        var alsoFrom: [RecordIdentity: [RecordSource]] = [:]
        var codes = Set<String>()
        var out: [ClinicalRecord] = []
        // Medications: one line per medication of the list (the newest record of it), however
        // many orders and statements of it the providers sent.
        let medication: [RecordIdentity: String] = section == .medications
            ? Dictionary(MedicationList(records: records).entries.flatMap { e in e.records.map { ($0, e.id) } }, uniquingKeysWith: { a, _ in a }) : [:]
        for record in newestFirst {
            guard let object = try? record.fhirResource.json(), Self.belongs(section, record.fhirResource.resourceType.rawValue, object) else { continue }
            let fact = medication[record.identity].map { "medication\u{1F}" + $0 } ?? Self.factKey(record, object)
            if let kept = seen[fact] {
                if kept.source != record.source.identifier, !(alsoFrom[kept]?.contains(record.source) ?? false) { alsoFrom[kept, default: []].append(record.source) }
                continue
            }
            seen[fact] = record.identity
            if section == .results || section == .vitalSigns {
                // The latest of each test or sign.
                guard codes.insert(Self.codeKey(object)).inserted else { continue }
            }
            out.append(record)
            if [.results, .vitalSigns, .procedures].contains(section), out.count >= maxPerSection { break }
        }
        return (out, alsoFrom)
    }

    /// A Provenance naming every provider that sent a fact listed once.
    static func provenance(of target: String, from sources: [RecordSource], at date: Date) -> JSONValue {
        let provenance = JSONObject([
            JSONMember("resourceType", .string("Provenance")),
            JSONMember("id", .string(UUID().uuidString.lowercased())),
            JSONMember("target", .array([.object(JSONObject([JSONMember("reference", .string(target))]))])),
            JSONMember("recorded", .string(InstantText.string(date))),
            JSONMember("agent", .array(sources.map { source in
                .object(JSONObject([JSONMember("who", .object(JSONObject([JSONMember("display", .string(source.name))])))]))
            })),
        ])
        return entry("urn:uuid:" + (provenance["id"]?.stringValue ?? ""), provenance)
    }

    /// Whether a record goes in a section, by its type and status.
    static func belongs(_ section: SummarySection, _ type: String, _ o: JSONObject) -> Bool {
        let status = o.string("status")
        let clinical = o["clinicalStatus"]?.objectValue.flatMap { $0.list("coding").first?.objectValue?.string("code") }
        let verification = o["verificationStatus"]?.objectValue.flatMap { $0.list("coding").first?.objectValue?.string("code") }
        if status == "entered-in-error" || verification == "entered-in-error" || verification == "refuted" { return false }
        switch section {
        case .problems: return type == "Condition" && (clinical == nil || ["active", "recurrence", "relapse"].contains(clinical!))
        case .pastIllness: return type == "Condition" && clinical != nil && !["active", "recurrence", "relapse"].contains(clinical!)
        case .allergies: return type == "AllergyIntolerance"
        case .medications:
            if type == "MedicationRequest" { return ["active", "on-hold"].contains(status ?? "") }
            if type == "MedicationStatement" { return ["active", "intended", "on-hold"].contains(status ?? "") }
            return false
        case .immunizations: return type == "Immunization" && (status == nil || status == "completed")
        case .results, .vitalSigns: return type == "Observation" && !["cancelled", "registered"].contains(status ?? "")
        case .procedures: return type == "Procedure" && (status == nil || status == "completed")
        case .devices: return type == "DeviceUseStatement"
        }
    }

    /// What makes two records the same fact: type, code, date and value.
    static func factKey(_ record: ClinicalRecord, _ o: JSONObject) -> String {
        let value = o.members.first { $0.key.hasPrefix("value") }.map { JSONWriter.minifiedString($0.value) } ?? ""
        return [record.fhirResource.resourceType.rawValue, codeKey(o), record.clinicalDate?.text ?? "", value].joined(separator: "\u{1F}")
    }

    /// The first coding (system and code) of the resource's code, else its text.
    static func codeKey(_ o: JSONObject) -> String {
        for key in ["code", "vaccineCode", "medicationCodeableConcept"] {
            guard let concept = o[key]?.objectValue else { continue }
            if let coding = concept.list("coding").first?.objectValue, let code = coding.string("code") {
                return (coding.string("system") ?? "") + "|" + code
            }
            if let text = concept.string("text") { return "text|" + text }
        }
        return ""
    }

    static func hasValue(_ o: JSONObject) -> Bool {
        o.keys.contains { $0.hasPrefix("value") || $0 == "dataAbsentReason" || $0 == "component" || $0 == "hasMember" }
    }

    // MARK: Writing

    static func key(_ source: String, _ type: String, _ id: String) -> String { source + "\u{1F}" + type + "\u{1F}" + id }

    static func entry(_ urn: String, _ resource: JSONObject) -> JSONValue {
        .object(JSONObject([JSONMember("fullUrl", .string(urn)), JSONMember("resource", .object(resource))]))
    }

    static func loinc(_ code: String, _ display: String) -> JSONValue {
        .object(JSONObject([JSONMember("coding", .array([.object(JSONObject([
            JSONMember("system", .string("http://loinc.org")), JSONMember("code", .string(code)), JSONMember("display", .string(display)),
        ]))]))]))
    }

    static func narrative(_ div: String) -> JSONValue {
        .object(JSONObject([JSONMember("status", .string("generated")), JSONMember("div", .string(div))]))
    }

    static func header(_ section: SummarySection) -> [String] {
        switch section {
        case .results, .vitalSigns: return ["Test", "Value", "Reference range", "Date"]
        case .medications: return ["Medication", "Status", "Since"]
        case .devices: return ["Device", "Status", "Date"]
        default: return ["Item", "Status", "Date"]
        }
    }

    /// One row of a section's table.
    static func row(_ section: SummarySection, _ record: ClinicalRecord, _ o: JSONObject) -> [String] {
        let date = record.clinicalDate?.text ?? ""
        switch section {
        case .results, .vitalSigns:
            return [record.displayName, value(o), range(o), date]
        default:
            let status = o["clinicalStatus"]?.objectValue.flatMap { $0.list("coding").first?.objectValue?.string("code") } ?? o.string("status") ?? ""
            return [record.displayName, status, date]
        }
    }

    /// A result's value as text: a quantity with its unit, a concept's text or display, a string.
    static func value(_ o: JSONObject) -> String {
        if let q = o["valueQuantity"]?.objectValue {
            let number = q["value"]?.numberValue?.text ?? ""
            return [number, q.string("unit") ?? q.string("code") ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
        }
        if let c = o["valueCodeableConcept"]?.objectValue {
            return c.string("text") ?? c.list("coding").first?.objectValue?.string("display") ?? ""
        }
        if let s = o.string("valueString") { return s }
        let parts = o.list("component").compactMap { $0.objectValue }.map { c -> String in
            let name = c["code"]?.objectValue.flatMap { $0.string("text") ?? $0.list("coding").first?.objectValue?.string("display") } ?? ""
            return name + " " + value(c)
        }
        return parts.joined(separator: "; ")
    }

    static func range(_ o: JSONObject) -> String {
        guard let r = o.list("referenceRange").first?.objectValue else { return "" }
        if let text = r.string("text") { return text }
        let low = r["low"]?.objectValue?["value"]?.numberValue?.text
        let high = r["high"]?.objectValue?["value"]?.numberValue?.text
        switch (low, high) {
        case let (l?, h?): return l + "–" + h
        case let (l?, nil): return "≥ " + l
        case let (nil, h?): return "≤ " + h
        default: return ""
        }
    }

    /// The merged Patient (``PatientMerger``), or a Patient that says nothing is known.
    static func patient(_ parts: [StoredResource], id: String, now: Date) -> JSONObject {
        let objects = parts.compactMap { try? $0.resource.json() }
        guard !objects.isEmpty else {
            return JSONObject([
                JSONMember("resourceType", .string("Patient")), JSONMember("id", .string(id)),
                JSONMember("name", .array([.object(JSONObject([JSONMember("text", .string("Unknown"))]))])),
            ])
        }
        let merged = PatientMerger.merge(objects, personID: id, lastUpdated: InstantText.string(now))
        return JSONObject(merged.members.filter { $0.key != "meta" })
    }
}
