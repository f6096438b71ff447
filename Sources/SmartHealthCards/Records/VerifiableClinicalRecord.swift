import ClinicalRecords
import FHIR
import Foundation

/// A verifiable clinical record: a signed SMART Health Card or EU Digital COVID Certificate, as
/// HealthKit's `HKVerifiableClinicalRecord` presents it.
public struct VerifiableClinicalRecord: Sendable, Hashable {
    /// The person the record is about (a card carries only minimal identity).
    public struct Subject: Sendable, Hashable {
        /// The full name, e.g. "John B. Anyperson".
        public let fullName: String
        /// The date of birth, at the precision given.
        public let dateOfBirth: FHIRDate?

        /// Makes a subject; an empty `fullName` is allowed (a card whose Patient has no name).
        public init(fullName: String, dateOfBirth: FHIRDate?) {
            self.fullName = fullName
            self.dateOfBirth = dateOfBirth
        }
    }

    /// Where a verifiable record comes from.
    public enum SourceType: String, Sendable, Hashable, Codable, CaseIterable {
        /// A SMART Health Card.
        case smartHealthCard = "SMARTHealthCard"
        /// An EU Digital COVID Certificate (HCERT).
        case euDigitalCOVIDCertificate = "EUDigitalCOVIDCertificate"
    }

    /// The card's types: its `vc.type` URIs, plus the types its contents imply
    /// (`#immunization` when it holds an Immunization, `#laboratory` when it holds an Observation).
    ///
    /// Spec 1.4.0 deprecated the extra `vc.type` values in favour of classifying cards by their
    /// contents; deriving them keeps queries by type working for new and old cards alike.
    public let recordTypes: [String]
    /// The issuer (`iss`).
    public let issuerIdentifier: String
    /// The person the card names, from its Patient resources; the name is empty when none has one.
    public let subject: Subject
    /// When the card was issued (`nbf`).
    public let issuedDate: Date
    /// The latest immunization or observation date in the card.
    public let relevantDate: Date?
    /// When the card expires (`exp`), if it does.
    public let expirationDate: Date?
    /// Names of the contained items, e.g. "COVID-19, mRNA, LNP-S, PF, 30 mcg/0.3 mL dose".
    public let itemNames: [String]
    /// What kind of signed artifact the record is.
    public let sourceType: SourceType
    /// The signed artifact: a card's compact JWS, or a DCC's QR text (`HC1:…`). HealthKit hands
    /// apps only the CWT of a DCC, which cannot be verified without its signature; the QR text
    /// can.
    public let dataRepresentation: Data
    /// A DCC's decoded payload (`ver`, `nam`, `dob`, `v`/`t`/`r`); `nil` for a card, whose
    /// contents are its FHIR bundle.
    public let decodedPayload: JSONValue?
    /// The FHIR resource types the card's bundle holds (Immunization, Observation…).
    public let fhirResourceTypes: [String]

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
        self.recordTypes = recordTypes
        self.issuerIdentifier = payload.issuer
        self.subject = Subject(fullName: subjectName, dateOfBirth: birth)
        self.issuedDate = payload.issuedDate
        self.relevantDate = latest?.date
        self.expirationDate = payload.expirationDate
        self.itemNames = items
        self.sourceType = .smartHealthCard
        self.dataRepresentation = Data(jws.utf8)
        self.decodedPayload = nil
        self.fhirResourceTypes = types
    }

    /// Makes a record from stored parts.
    public init(
        recordTypes: [String], issuerIdentifier: String, subject: Subject, issuedDate: Date, relevantDate: Date?, expirationDate: Date?,
        itemNames: [String], dataRepresentation: Data, fhirResourceTypes: [String], sourceType: SourceType = .smartHealthCard,
        decodedPayload: JSONValue? = nil
    ) {
        self.recordTypes = recordTypes
        self.issuerIdentifier = issuerIdentifier
        self.subject = subject
        self.issuedDate = issuedDate
        self.relevantDate = relevantDate
        self.expirationDate = expirationDate
        self.itemNames = itemNames
        self.sourceType = sourceType
        self.dataRepresentation = dataRepresentation
        self.decodedPayload = decodedPayload
        self.fhirResourceTypes = fhirResourceTypes
    }

    /// The compact JWS (or a DCC's QR text) as text, decoded from ``dataRepresentation`` as UTF-8.
    public var jws: String { String(decoding: dataRepresentation, as: UTF8.self) }

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
