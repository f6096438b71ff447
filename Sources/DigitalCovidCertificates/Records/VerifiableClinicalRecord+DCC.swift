import CBOR
import FHIR
import Foundation
import VerifiableRecords

extension VerifiableClinicalRecord {
    /// The record types of each kind, from HealthKit's credential types.
    static func recordTypes(_ kind: DCCKind) -> [String] {
        switch kind {
        case .vaccination: return ["https://smarthealth.cards#immunization", "https://smarthealth.cards#covid19"]
        case .test: return ["https://smarthealth.cards#laboratory", "https://smarthealth.cards#covid19"]
        case .recovery: return ["https://smarthealth.cards#recovery", "https://smarthealth.cards#covid19"]
        }
    }

    /// The record of a decoded DCC; `nil` when its payload holds no single group.
    ///
    /// The issuer is the CWT's `iss` (the issuing country), falling back to the entry's `is`;
    /// the relevant date is the vaccination date, the sample collection time or the first
    /// positive test; the record keeps the QR text and the decoded payload.
    public init?(certificate: DigitalCovidCertificate) {
        let payload = certificate.payload
        guard let kind = certificate.kind, let entry = payload[kind.payloadKey]?.arrayElements?.first else { return nil }
        let name = payload["nam"]
        let given = name?["gn"]?.text ?? name?["gnt"]?.text
        let family = name?["fn"]?.text ?? name?["fnt"]?.text
        let fullName = [given, family].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        let relevantText: String?
        switch kind {
        case .vaccination: relevantText = entry["dt"]?.text
        case .test: relevantText = entry["sc"]?.text ?? Self.taggedText(entry["sc"])
        case .recovery: relevantText = entry["fr"]?.text
        }
        self.init(
            recordTypes: Self.recordTypes(kind),
            issuerIdentifier: certificate.claims.issuer ?? entry["is"]?.text ?? "",
            subject: Subject(fullName: fullName, dateOfBirth: payload["dob"]?.text.flatMap(FHIRDate.init)),
            issuedDate: certificate.claims.issuedAt,
            relevantDate: relevantText.flatMap(FHIRDate.init)?.date,
            expirationDate: certificate.claims.expiration,
            itemNames: [DCCItemName.name(kind: kind, entry: entry)],
            dataRepresentation: Data(certificate.qrText.utf8),
            fhirResourceTypes: [],
            sourceType: .euDigitalCOVIDCertificate,
            decodedPayload: payload.json)
    }

    private static func taggedText(_ value: CBORValue?) -> String? {
        if case .tagged(0, .text(let s))? = value { return s }
        return nil
    }
}
