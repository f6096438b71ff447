import FHIR
import Foundation

/// One administered dose, as the checklist sees it.
public struct ImmunizationDose: Sendable, Hashable {
    /// When it was given.
    public let date: FHIRDate?
    /// The CVX code, when the record has one.
    public let cvx: String?
    /// The name shown for the dose; a dose made from a record carries the record's ``ClinicalRecord/displayName``.
    public let vaccineName: String
    /// The record it came from.
    public let record: RecordIdentity?

    /// Makes a dose from parts; ``ImmunizationChecklist/init(records:birthDate:tables:)`` makes them from records.
    public init(date: FHIRDate?, cvx: String?, vaccineName: String, record: RecordIdentity?) {
        self.date = date
        self.cvx = cvx
        self.vaccineName = vaccineName
        self.record = record
    }
}

/// One line of the checklist: a vaccine group or an antigen, and the doses that cover it.
public struct ChecklistItem: Sendable, Hashable {
    /// What the line is about.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A CDC vaccine group, e.g. "MMR".
        case vaccineGroup = "vaccine-group"
        /// A CDSi antigen, e.g. "Measles".
        case antigen
    }

    /// Group or antigen.
    public let kind: Kind
    /// The CDC vaccine group (e.g. "MMR") or CDSi antigen (e.g. "Measles") as the code tables spell it.
    public let name: String
    /// The doses that cover it, oldest first.
    public let doses: [ImmunizationDose]
}

/// The immunization checklist: which vaccine groups and antigens a person's doses cover.
///
/// A dose covers every CDC vaccine group of its CVX code and every CDSi antigen (MMRV, CVX 94,
/// covers measles, mumps, rubella and varicella). Doses not given (`not-done`, `wasNotGiven`)
/// do not count.
public struct ImmunizationChecklist: Sendable {
    /// Lines per CDC vaccine group.
    public let vaccineGroups: [ChecklistItem]
    /// Lines per CDSi antigen.
    public let antigens: [ChecklistItem]
    /// Doses whose CVX code is missing or unknown.
    public let unmapped: [ImmunizationDose]

    /// Builds the checklist from immunization records.
    ///
    /// - Parameter birthDate: when known, an antigen association bounded by age (CVX 121 is
    ///   varicella before 50 years and zoster after) only applies within its ages.
    public init(records: [ClinicalRecord], birthDate: FHIRDate? = nil, tables: CodeTables = .shipped) {
        var doses: [ImmunizationDose] = []
        for record in records where record.clinicalType == .immunization {
            guard let json = try? record.fhirResource.json(), ImmunizationChecklist.wasGiven(json) else { continue }
            let concept = json.codeableConcept("vaccineCode")
            let cvx = concept?.coding.first { $0.system == CodeSystem.cvx || $0.system == "urn:oid:2.16.840.1.113883.12.292" }?.code
            doses.append(ImmunizationDose(date: record.clinicalDate, cvx: cvx, vaccineName: record.displayName, record: record.identity))
        }
        self.init(doses: doses, birthDate: birthDate, tables: tables)
    }

    /// Builds the checklist from doses.
    public init(doses: [ImmunizationDose], birthDate: FHIRDate? = nil, tables: CodeTables = .shipped) {
        var groups: [String: [ImmunizationDose]] = [:]
        var antigens: [String: [ImmunizationDose]] = [:]
        var unmapped: [ImmunizationDose] = []
        for dose in doses {
            guard let cvx = dose.cvx.map(CodeTables.normalizedCVX) else { unmapped.append(dose); continue }
            let g = tables.vaccineGroups[cvx] ?? []
            let a = (tables.antigens[cvx] ?? []).filter { ImmunizationChecklist.applies($0, dose: dose, birthDate: birthDate) }
            if g.isEmpty && a.isEmpty { unmapped.append(dose); continue }
            for name in Set(g) { groups[name, default: []].append(dose) }
            for name in Set(a.map(\.antigen)) { antigens[name, default: []].append(dose) }
        }
        func items(_ d: [String: [ImmunizationDose]], _ kind: ChecklistItem.Kind) -> [ChecklistItem] {
            d.map { ChecklistItem(kind: kind, name: $0.key, doses: $0.value.sorted(by: ImmunizationChecklist.byDate)) }
                .sorted { $0.name.localizedCaseInsensitiveCompare($1.name) == .orderedAscending }
        }
        self.vaccineGroups = items(groups, .vaccineGroup)
        self.antigens = items(antigens, .antigen)
        self.unmapped = unmapped.sorted(by: ImmunizationChecklist.byDate)
    }

    static func byDate(_ a: ImmunizationDose, _ b: ImmunizationDose) -> Bool {
        switch (a.date, b.date) {
        case let (x?, y?): return x < y
        case (nil, _?): return false
        case (_?, nil): return true
        default: return a.vaccineName < b.vaccineName
        }
    }

    static func wasGiven(_ json: JSONObject) -> Bool {
        if let status = json.string("status"), status == "not-done" || status == "entered-in-error" { return false }
        if json.bool("wasNotGiven") == true || json.bool("notGiven") == true { return false }
        return true
    }

    /// Whether an age-bounded association applies to a dose given a birth date (CDSi ages such as "50 years").
    static func applies(_ a: CodeTables.AntigenAssociation, dose: ImmunizationDose, birthDate: FHIRDate?) -> Bool {
        guard let birthDate, let date = dose.date else { return true }
        let ageYears = date.date.timeIntervalSince(birthDate.date) / (365.2425 * 86_400)
        if let begin = a.beginAge.flatMap(years), ageYears < begin { return false }
        if let end = a.endAge.flatMap(years), ageYears >= end { return false }
        return true
    }

    private static func years(_ text: String) -> Double? {
        // CDSi ages look like "50 years", "6 weeks", "4 months - 4 days"; the first term is enough here.
        let parts = text.split(separator: " ")
        guard parts.count >= 2, let n = Double(parts[0]) else { return nil }
        switch parts[1].lowercased() {
        case let u where u.hasPrefix("year"): return n
        case let u where u.hasPrefix("month"): return n / 12
        case let u where u.hasPrefix("week"): return n * 7 / 365.2425
        case let u where u.hasPrefix("day"): return n / 365.2425
        default: return nil
        }
    }
}
