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
}
