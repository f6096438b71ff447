import ClinicalRecords
import FHIR
import Foundation
import VerifiableRecords

extension VerifiableClinicalRecord {
    /// Derives the record from a verified payload and its JWS.
    ///
    /// Works on the payload's tape: only the strings the record keeps are ever made.
    public init(payload: HealthCardPayload, jws: String, names: DisplayNameResolver = DisplayNameResolver()) {
        let t = payload.tape
        var subjectName = ""
        var birth: FHIRDate? = nil
        var items: [String] = []
        var latest: FHIRDate? = nil
        var types: [String] = []
        if let entries = t.member(payload.bundleToken, "entry") {
            t.forEachElement(entries) { entry in
                guard let r = t.member(entry, "resource"), let typeToken = t.member(r, "resourceType"), let typeName = t.string(typeToken) else { return }
                if !types.contains(typeName) { types.append(typeName) }
                switch typeName {
                case "Patient":
                    if subjectName.isEmpty { subjectName = Self.fullName(t, r) }
                    if birth == nil { birth = t.member(r, "birthDate").flatMap(t.string).flatMap(FHIRDate.init) }
                case "Immunization", "Observation", "DiagnosticReport":
                    let immunization = typeName == "Immunization"
                    let concept = t.member(r, immunization ? "vaccineCode" : "code")
                    items.append(concept.flatMap { Self.itemName(t, $0, immunization: immunization, tables: names.tables) } ?? typeName)
                    if let d = Self.relevantDate(t, r, immunization: typeName == "Immunization"), latest.map({ d > $0 }) ?? true { latest = d }
                case "Organization", "Practitioner", "Specimen":
                    break
                default:
                    if let o = t.object(r) { items.append(names.displayName(resourceType: FHIRResourceType(typeName), json: o)) }
                }
            }
        }
        var recordTypes = payload.types
        for (resourceType, derived) in [("Immunization", "https://smarthealth.cards#immunization"), ("Observation", "https://smarthealth.cards#laboratory")]
        where types.contains(resourceType) && !recordTypes.contains(derived) {
            recordTypes.append(derived)
        }
        self.init(
            recordTypes: recordTypes, issuerIdentifier: payload.issuer, subject: Subject(fullName: subjectName, dateOfBirth: birth),
            issuedDate: payload.issuedDate, relevantDate: latest?.date, expirationDate: payload.expirationDate, itemNames: items,
            dataRepresentation: Data(jws.utf8), fhirResourceTypes: types)
    }

    static func fullName(_ t: JSONTape, _ patient: Int) -> String {
        guard let names = t.member(patient, "name"), let name = t.elements(names).first, t.kind(name) == .object else { return "" }
        if let text = t.member(name, "text").flatMap(t.string) { return text }
        var parts: [String] = []
        if let given = t.member(name, "given") { for g in t.elements(given) { if let s = t.string(g) { parts.append(s) } } }
        if let family = t.member(name, "family") { for f in t.elements(family) { if let s = t.string(f) { parts.append(s) } } }
        return parts.joined(separator: " ")
    }

    /// The name of a concept read straight off the tape: its text, the display of its CVX or
    /// LOINC coding, any display, then the shipped code tables (minimized cards carry no display).
    static func itemName(_ t: JSONTape, _ concept: Int, immunization: Bool, tables: CodeTables) -> String? {
        guard t.kind(concept) == .object else { return nil }
        if let text = t.member(concept, "text").flatMap(t.string), !text.isEmpty { return text }
        guard let list = t.member(concept, "coding") else { return nil }
        var anyDisplay: String? = nil
        var fallback: String? = nil
        var result: String? = nil
        t.forEachElement(list) { c in
            guard result == nil, t.kind(c) == .object else { return }
            let system = t.member(c, "system")
            let preferred = system.map { immunization ? t.keyEquals($0, "http://hl7.org/fhir/sid/cvx") : t.keyEquals($0, "http://loinc.org") } ?? false
            if let display = t.member(c, "display").flatMap(t.string), !display.isEmpty {
                if preferred { result = display } else if anyDisplay == nil { anyDisplay = display }
                return
            }
            guard fallback == nil, preferred, let code = t.member(c, "code").flatMap(t.string) else { return }
            fallback = immunization ? tables.vaccine(cvx: code)?.shortName : tables.loincNames[code]?.name
        }
        return result ?? anyDisplay ?? fallback
    }

    static func relevantDate(_ t: JSONTape, _ r: Int, immunization: Bool) -> FHIRDate? {
        func date(_ key: StaticString) -> FHIRDate? { t.member(r, key).flatMap(t.string).flatMap(FHIRDate.init) }
        if immunization { return date("occurrenceDateTime") ?? date("date") ?? date("recorded") }
        if let d = date("effectiveDateTime") { return d }
        if let p = t.member(r, "effectivePeriod"), let d = t.member(p, "start").flatMap(t.string).flatMap(FHIRDate.init) { return d }
        return date("effectiveInstant") ?? date("issued")
    }
}
