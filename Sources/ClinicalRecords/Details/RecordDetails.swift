import FHIR
import Foundation

/// What a record's page shows, read from its FHIR resource: values with units, reference ranges
/// and interpretation, dates, the people and organizations involved, its codes named from the
/// shipped tables, and the references that lead to related records.
///
/// Reading is forgiving — a resource with none of these elements gives empty lists — because
/// records come from many servers; nothing here decides whether a record is stored.
public struct RecordDetails: Sendable, Hashable {
    /// A measured or coded value, e.g. `5.4 mmol/L` or `Positive`.
    public struct Value: Sendable, Hashable {
        /// What the value is of, for one of several (a blood pressure's "Systolic"); `nil` for the value itself.
        public let label: String?
        /// The value as people read it, unit included.
        public let text: String
        /// The number, when the value is a quantity.
        public let number: Double?
        /// The unit, when the value is a quantity.
        public let unit: String?
    }

    /// A reference range: low and high bounds and any text.
    public struct Range: Sendable, Hashable {
        /// The low bound, if given.
        public let low: Double?
        /// The high bound, if given.
        public let high: Double?
        /// As people read it, e.g. `3.9–5.5 mmol/L` or the range's own text.
        public let text: String

        /// Makes a range.
        public init(low: Double?, high: Double?, text: String) {
            self.low = low
            self.high = high
            self.text = text
        }
    }

    /// A code with the system it belongs to and its name.
    public struct Code: Sendable, Hashable {
        /// The system's short name (`LOINC`, `SNOMED CT`, `CVX`, `RxNorm`, `ICD-10-CM`) or its URL.
        public let system: String
        /// The code.
        public let code: String
        /// Its name: the resource's display, else the shipped tables' name; `nil` when neither knows it.
        public let name: String?
    }

    /// A labelled entry: a date, a person, an organization.
    public struct Entry: Sendable, Hashable {
        /// What it is, e.g. `Performed` or `Performer`.
        public let label: String
        /// Its text.
        public let text: String
    }

    /// A reference to another resource, for finding related records.
    public struct Link: Sendable, Hashable {
        /// How it relates, e.g. `Result` or `Based on`.
        public let label: String
        /// The resource type it names.
        public let resourceType: String
        /// The id it names.
        public let identifier: String
        /// Its display text, if the reference carries one.
        public let display: String?
    }

    /// Values: the value itself, or a panel's components.
    public let values: [Value]
    /// Reference ranges.
    public let ranges: [Range]
    /// The interpretation (`High`, `Low`, `Critical high`…), if any.
    public let interpretation: Interpretation?
    /// The resource's status, e.g. `final`.
    public let status: String?
    /// Dates, labelled.
    public let dates: [Entry]
    /// People and organizations, labelled by role.
    public let parties: [Entry]
    /// Codes of the record's main concept (its code, vaccine code or medication).
    public let codes: [Code]
    /// References to other resources.
    public let links: [Link]

    /// Reads a resource.
    public init(resourceType: String, json o: JSONObject, tables: CodeTables = .shipped) {
        var values: [Value] = []
        if let v = Self.value(o, label: nil) { values.append(v) }
        for component in o.list("component").compactMap(\.objectValue) {
            let label = component.codeableConcept("code").flatMap { Self.conceptName($0, tables: tables) }
            if let v = Self.value(component, label: label ?? "Component") { values.append(v) }
        }
        self.values = values
        let unit = values.first?.unit
        ranges = o.list("referenceRange").compactMap(\.objectValue).compactMap { Self.range($0, unit: unit) }
        interpretation = o.codeableConcepts("interpretation").first.flatMap(Interpretation.init) ?? o.codeableConcept("interpretation").flatMap(Interpretation.init)
        status = o.string("status") ?? o.string("clinicalStatus") ?? o.codeableConcept("clinicalStatus").flatMap { $0.coding.first?.code ?? $0.text }
        dates = Self.dates(o)
        parties = Self.parties(o)
        let concept = ["code", "vaccineCode", "medicationCodeableConcept", "type"].lazy.compactMap { o.codeableConcept($0) }.first
        codes = concept.map { Self.codes($0, tables: tables) } ?? []
        links = Self.links(o)
    }

    /// Reads a record's resource; a resource that does not parse gives empty details.
    public init(record: ClinicalRecord, tables: CodeTables = .shipped) {
        self.init(resourceType: record.fhirResource.resourceType.rawValue, json: (try? record.fhirResource.json()) ?? JSONObject(), tables: tables)
    }

    /// The interpretation, or — when the resource gives none — High or Low from the value against
    /// the first range with bounds (marked as derived by being computed, not read).
    public var flag: Interpretation? {
        if let interpretation { return interpretation }
        guard let q = quantity, let range = ranges.first(where: { $0.low != nil || $0.high != nil }) else { return nil }
        if let high = range.high, q.number > high { return .high(critical: false) }
        if let low = range.low, q.number < low { return .low(critical: false) }
        return .normal
    }

    /// The numeric value and unit of a single-quantity record (a lab result, a vital sign), for trends.
    public var quantity: (number: Double, unit: String?)? {
        guard values.count == 1, let v = values.first, let n = v.number, n.isFinite else { return nil }
        return (n, v.unit)
    }

    // MARK: - Reading

    static func value(_ o: JSONObject, label: String?) -> Value? {
        if let q = o["valueQuantity"].flatMap(Quantity.init(json:)) ?? o["valueSimpleQuantity"].flatMap(Quantity.init(json:)), let v = q.value {
            let unit = q.unit ?? q.code
            let text = (q.comparator ?? "") + displayed(v) + (unit.map { " " + $0 } ?? "")
            return Value(label: label, text: text, number: v.doubleValue, unit: unit)
        }
        if let c = o.codeableConcept("valueCodeableConcept"), let name = c.text ?? c.coding.first(where: { $0.display != nil })?.display ?? c.coding.first?.code {
            return Value(label: label, text: name, number: nil, unit: nil)
        }
        for key in ["valueString", "valueDateTime", "valueTime"] {
            if let s = o.string(key) { return Value(label: label, text: s, number: nil, unit: nil) }
        }
        if let b = o.bool("valueBoolean") { return Value(label: label, text: b ? "Yes" : "No", number: nil, unit: nil) }
        if let n = o["valueInteger"]?.numberValue { return Value(label: label, text: n.text, number: Double(n.text), unit: nil) }
        if let p = o.object("valuePeriod") {
            return Value(label: label, text: [p.string("start"), p.string("end")].compactMap { $0 }.joined(separator: " – "), number: nil, unit: nil)
        }
        return nil
    }

    /// A decimal as people read it: as written, unless it carries more than three fraction
    /// digits (computed values such as `92.08894661770401`), which are rounded to two. The
    /// resource keeps the exact value.
    static func displayed(_ d: FHIRDecimal) -> String {
        guard d.fractionDigits > 3, d.doubleValue.isFinite else { return d.text }
        var text = String(format: "%.2f", d.doubleValue)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// A FHIR date or date-time as people read it: the date, and the time to the minute.
    public static func readable(_ text: String) -> String {
        guard text.count > 10, let t = text.firstIndex(of: "T") else { return text }
        let time = text[text.index(after: t)...].prefix(5)
        return String(text[..<t]) + " " + time
    }

    static func range(_ r: JSONObject, unit: String?) -> Range? {
        let low = r["low"].flatMap(Quantity.init(json:))
        let high = r["high"].flatMap(Quantity.init(json:))
        let u = high?.unit ?? low?.unit ?? unit
        var text = r.string("text") ?? ""
        if text.isEmpty {
            switch (low?.value, high?.value) {
            case (let l?, let h?): text = "\(l.text)–\(h.text)"
            case (let l?, nil): text = "≥ \(l.text)"
            case (nil, let h?): text = "≤ \(h.text)"
            default: return nil
            }
            if let u { text += " " + u }
        }
        return Range(low: low?.value?.doubleValue, high: high?.value?.doubleValue, text: text)
    }

    static func dates(_ o: JSONObject) -> [Entry] {
        let keys: [(String, String)] = [
            ("effectiveDateTime", "Effective"), ("effectiveInstant", "Effective"), ("occurrenceDateTime", "Given"), ("performedDateTime", "Performed"),
            ("onsetDateTime", "Onset"), ("abatementDateTime", "Resolved"), ("recordedDate", "Recorded"), ("recorded", "Recorded"),
            ("issued", "Issued"), ("authoredOn", "Written"), ("dateWritten", "Written"), ("whenHandedOver", "Handed over"), ("date", "Date"),
            ("dateAsserted", "Asserted"), ("assertedDate", "Asserted"), ("dateRecorded", "Recorded"),
        ]
        var out: [Entry] = []
        for (key, label) in keys { if let s = o.string(key) { out.append(Entry(label: label, text: readable(s))) } }
        for (key, label) in [("effectivePeriod", "Effective"), ("performedPeriod", "Performed"), ("period", "Period"), ("onsetPeriod", "Onset")] {
            if let p = o.object(key) {
                let text = [p.string("start"), p.string("end")].compactMap { $0 }.map(readable).joined(separator: " – ")
                if !text.isEmpty { out.append(Entry(label: label, text: text)) }
            }
        }
        return out
    }

    static func parties(_ o: JSONObject) -> [Entry] {
        var out: [Entry] = []
        func add(_ label: String, _ value: JSONValue?) {
            guard let r = value.flatMap(Reference.init(json:)) else { return }
            if let text = r.display ?? r.reference { out.append(Entry(label: label, text: text)) }
        }
        for p in o.list("performer") {
            // R4 Immunization and Procedure wrap the reference in `actor`.
            if let actor = p.objectValue?["actor"] { add("Performer", actor) } else { add("Performer", p) }
        }
        add("Requester", o["requester"])
        add("Prescriber", o["prescriber"])
        add("Recorder", o["recorder"])
        add("Asserter", o["asserter"])
        add("Ordered by", o["orderer"])
        add("Organization", o["serviceProvider"])
        add("Location", o["location"])
        for actor in o.list("participant").compactMap({ $0.objectValue?["individual"] }) { add("Participant", actor) }
        return out
    }

    static func links(_ o: JSONObject) -> [Link] {
        var out: [Link] = []
        func add(_ label: String, _ value: JSONValue?) {
            guard let r = value.flatMap(Reference.init(json:)), let (type, id) = r.typeAndIdentifier else { return }
            out.append(Link(label: label, resourceType: type, identifier: id, display: r.display))
        }
        for r in o.list("result") { add("Result", r) }
        for r in o.list("hasMember") { add("Member", r) }
        for r in o.list("derivedFrom") { add("Derived from", r) }
        for r in o.list("basedOn") { add("Based on", r) }
        for r in o.list("authorizingPrescription") { add("Prescription", r) }
        for r in o.list("reasonReference") { add("Reason", r) }
        add("Medication", o["medicationReference"])
        add("Encounter", o["encounter"] ?? o["context"])
        return out
    }

    static func codes(_ c: CodeableConcept, tables: CodeTables) -> [Code] {
        c.coding.compactMap { coding in
            guard let code = coding.code else { return nil }
            let system = systemName(coding.system)
            var name = coding.display
            if name == nil {
                switch coding.system {
                case CodeSystem.loinc: name = tables.loincNames[code]?.name
                case CodeSystem.cvx: name = tables.vaccine(cvx: code)?.fullName
                default: break
                }
            }
            return Code(system: system, code: code, name: name)
        }
    }

    /// A concept's name: its text, a display, or the shipped tables' name of its LOINC or CVX code.
    static func conceptName(_ c: CodeableConcept, tables: CodeTables) -> String? {
        c.text ?? c.coding.first(where: { $0.display != nil })?.display ?? codes(c, tables: tables).first(where: { $0.name != nil })?.name
    }

    static func systemName(_ url: String?) -> String {
        switch url {
        case CodeSystem.loinc?: return "LOINC"
        case CodeSystem.snomed?: return "SNOMED CT"
        case CodeSystem.cvx?: return "CVX"
        case CodeSystem.rxNorm?: return "RxNorm"
        case "http://hl7.org/fhir/sid/icd-10-cm"?: return "ICD-10-CM"
        case "http://hl7.org/fhir/sid/icd-10"?: return "ICD-10"
        case "http://hl7.org/fhir/sid/ndc"?: return "NDC"
        case "http://www.ama-assn.org/go/cpt"?: return "CPT"
        case let other?: return other
        case nil: return "(no system)"
        }
    }
}
