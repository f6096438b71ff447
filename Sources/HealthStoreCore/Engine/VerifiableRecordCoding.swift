import ByteEncodings
import FHIR
import Foundation
import SmartHealthCards
import VerifiableRecords

/// How cards are written to and read from rows.
package enum VerifiableRecordCoding {
    package static func details(_ r: VerifiableClinicalRecord) -> JSONValue {
        var members = [
            JSONMember("issuer", .string(r.issuerIdentifier)),
            JSONMember("fullName", .string(r.subject.fullName)),
            JSONMember("dateOfBirth", r.subject.dateOfBirth.map { .string($0.text) } ?? .null),
            JSONMember("itemNames", .array(r.itemNames.map(JSONValue.string))),
            JSONMember("fhirResourceTypes", .array(r.fhirResourceTypes.map(JSONValue.string))),
        ]
        // Rows written before DCCs had neither member: they are cards.
        if r.sourceType != .smartHealthCard { members.append(JSONMember("sourceType", .string(r.sourceType.rawValue))) }
        if let payload = r.decodedPayload { members.append(JSONMember("payload", payload)) }
        return .object(JSONObject(members))
    }

    package static func status(_ s: CardStatus) -> JSONValue {
        switch s {
        case .verified(let trusted): return .object(JSONObject(["trusted": .bool(trusted)]))
        case .unverified(let codes): return .object(JSONObject(["codes": .array(codes.map(JSONValue.string))]))
        }
    }

    package static func status(name: String, detail: Data) throws -> CardStatus {
        let o = try JSONReader().read(detail).objectValue ?? JSONObject()
        if name == "verified" { return .verified(trusted: o.bool("trusted") ?? false) }
        return .unverified(codes: o.list("codes").compactMap(\.stringValue))
    }

    /// Rebuilds a stored card from its row's values (sealed ones as stored).
    package static func stored(
        identity: Data, recordTypes: String, issued: Double, relevant: Double?, expiration: Double?, added: Double, status statusName: String,
        statusDetail: Data, details sealedDetails: Data, jws: Data, sealer: any RecordSealer
    ) throws -> StoredVerifiableRecord {
        let details = try JSONReader().read(sealer.open(sealedDetails)).objectValue ?? JSONObject()
        let record = VerifiableClinicalRecord(
            recordTypes: recordTypes.split(separator: " ").map(String.init),
            issuerIdentifier: details.string("issuer") ?? "",
            subject: .init(fullName: details.string("fullName") ?? "", dateOfBirth: details.date("dateOfBirth")),
            issuedDate: Date(timeIntervalSince1970: issued),
            relevantDate: relevant.map(Date.init(timeIntervalSince1970:)),
            expirationDate: expiration.map(Date.init(timeIntervalSince1970:)),
            itemNames: details.list("itemNames").compactMap(\.stringValue),
            dataRepresentation: try sealer.open(jws),
            fhirResourceTypes: details.list("fhirResourceTypes").compactMap(\.stringValue),
            sourceType: details.string("sourceType").flatMap(VerifiableClinicalRecord.SourceType.init(rawValue:)) ?? .smartHealthCard,
            decodedPayload: details["payload"])
        return StoredVerifiableRecord(
            identifier: Hex.encode(identity), record: record,
            status: try status(name: statusName, detail: sealer.open(statusDetail)),
            addedDate: Date(timeIntervalSince1970: added))
    }
}
