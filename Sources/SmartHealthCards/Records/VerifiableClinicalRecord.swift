import ClinicalRecords
import FHIR
import Foundation

/// A verifiable clinical record: a signed SMART Health Card, as HealthKit's
/// `HKVerifiableClinicalRecord` presents it.
public struct VerifiableClinicalRecord: Sendable, Hashable {
    /// The person the record is about (a card carries only minimal identity).
    public struct Subject: Sendable, Hashable {
        /// The full name, e.g. "John B. Anyperson".
        public let fullName: String
        /// The date of birth, at the precision given.
        public let dateOfBirth: FHIRDate?

        /// Makes a subject.
        public init(fullName: String, dateOfBirth: FHIRDate?) {
            self.fullName = fullName
            self.dateOfBirth = dateOfBirth
        }
    }

    /// Where a verifiable record comes from.
    public enum SourceType: String, Sendable, Hashable, Codable {
        /// A SMART Health Card.
        case smartHealthCard = "SMARTHealthCard"
    }

    /// The card's types: its `vc.type` URIs, plus the types its contents imply
    /// (`#immunization` when it holds an Immunization, `#laboratory` when it holds an Observation).
    ///
    /// Spec 1.4.0 deprecated the extra `vc.type` values in favour of classifying cards by their
    /// contents; deriving them keeps queries by type working for new and old cards alike.
    public let recordTypes: [String]
    /// The issuer (`iss`).
    public let issuerIdentifier: String
    /// The person.
    public let subject: Subject
    /// When the card was issued (`nbf`).
    public let issuedDate: Date
    /// The latest immunization or observation date in the card.
    public let relevantDate: Date?
    /// When the card expires (`exp`), if it does.
    public let expirationDate: Date?
    /// Names of the contained items, e.g. "COVID-19, mRNA, LNP-S, PF, 30 mcg/0.3 mL dose".
    public let itemNames: [String]
    /// Always a SMART Health Card here.
    public let sourceType: SourceType
    /// The compact JWS bytes.
    public let dataRepresentation: Data
    /// The FHIR resource types the card's bundle holds (Immunization, Observation…).
    public let fhirResourceTypes: [String]

    /// Derives the record from a verified payload and its JWS.
    public init(payload: HealthCardPayload, jws: String, names: DisplayNameResolver = DisplayNameResolver()) {
        var subjectName = ""
        var birth: FHIRDate? = nil
        var items: [String] = []
        var latest: FHIRDate? = nil
        var types: [String] = []
        for entry in payload.fhirBundle.list("entry") {
            guard let r = entry.objectValue?.object("resource"), let typeName = r.string("resourceType") else { continue }
            let type = FHIRResourceType(typeName)
            if !types.contains(typeName) { types.append(typeName) }
            switch typeName {
            case "Patient":
                if subjectName.isEmpty { subjectName = Self.fullName(r) }
                if birth == nil { birth = r.date("birthDate") }
            case "Immunization", "Observation", "DiagnosticReport":
                items.append(names.displayName(resourceType: type, json: r))
                if let d = ClinicalDateExtractor.clinicalDate(resourceType: type, json: r), latest.map({ d > $0 }) ?? true { latest = d }
            default:
                if typeName != "Organization" && typeName != "Practitioner" && typeName != "Specimen" {
                    items.append(names.displayName(resourceType: type, json: r))
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
        self.fhirResourceTypes = types
    }

    /// Makes a record from stored parts.
    public init(
        recordTypes: [String], issuerIdentifier: String, subject: Subject, issuedDate: Date, relevantDate: Date?, expirationDate: Date?,
        itemNames: [String], dataRepresentation: Data, fhirResourceTypes: [String]
    ) {
        self.recordTypes = recordTypes
        self.issuerIdentifier = issuerIdentifier
        self.subject = subject
        self.issuedDate = issuedDate
        self.relevantDate = relevantDate
        self.expirationDate = expirationDate
        self.itemNames = itemNames
        self.sourceType = .smartHealthCard
        self.dataRepresentation = dataRepresentation
        self.fhirResourceTypes = fhirResourceTypes
    }

    /// The JWS text.
    public var jws: String { String(decoding: dataRepresentation, as: UTF8.self) }

    static func fullName(_ patient: JSONObject) -> String {
        guard let name = patient.list("name").first?.objectValue else { return "" }
        if let text = name.string("text") { return text }
        let given = name.list("given").compactMap(\.stringValue)
        let family: [String] = name["family"]?.stringValue.map { [$0] } ?? name.list("family").compactMap(\.stringValue)
        return (given + family).joined(separator: " ")
    }
}
