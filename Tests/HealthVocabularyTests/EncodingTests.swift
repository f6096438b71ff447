import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary
import SmartHealthCards
import Testing
import VerifiableRecords

/// The one key set: records, context resources, deletions, change feeds, cards and samples.
@Suite struct EncodingTests {
    static let added = Date(timeIntervalSince1970: 1_700_000_000)
    static let lab = #"{"resourceType":"Observation","id":"l1","code":{"text":"Glucose"},"effectiveDateTime":"2020-03-01","valueQuantity":{"value":5.40,"unit":"mmol/L"}}"#

    static func record() throws -> ClinicalRecord {
        ClinicalRecord(
            clinicalType: .labResult, displayName: "Glucose", fhirResource: try FHIRResource(data: Data(lab.utf8)),
            source: RecordSource(identifier: "clinic/north", name: "North Clinic"), addedDate: added, clinicalDate: FHIRDate("2020-03-01"))
    }

    static func keys(_ json: EncodedJSON) throws -> [String] { try #require(try json.jsonValue().objectValue).keys }

    @Test func aRecordHasThePublishedKeysAndItsResourceBytesAsStored() throws {
        let json = RecordJSON.record(try Self.record())
        #expect(try Self.keys(json) == [
            "source", "sourceName", "resourceType", "id", "clinicalType", "displayName", "fhirVersion", "clinicalDate", "addedDate", "resource",
        ])
        let text = String(decoding: json.bytes, as: UTF8.self)
        #expect(text.hasSuffix(#""resource":"# + Self.lab + "}"))
        #expect(text.contains(#""id":"l1","clinicalType":"lab-result""#))
        #expect(text.contains(#""addedDate":"2023-11-14T22:13:20.000Z""#))
        #expect(text.contains(#""sourceName":"North Clinic""#))
        #expect(try Self.keys(RecordJSON.record(try Self.record(), anchor: "A")).contains("anchor"))
    }

    @Test func prettyTextIsTheSameJSONWithDecimalsUntouched() throws {
        let json = RecordJSON.list([try Self.record()])
        let pretty = json.prettyText
        #expect(pretty.contains("\n"))
        #expect(pretty.contains(#""value": 5.40"#))
        #expect(try JSONReader().read(pretty) == (try JSONReader().read(json.bytes)))
    }

    @Test func unreadableStoredBytesFallBackToMinifiedJSON() {
        let json = EncodedJSON.object([("resource", .raw(Data("{not json".utf8)))])
        #expect(json.prettyText == #"{"resource":{not json}"#)
    }

    @Test func aDeletionAndAChangeFeedUseTheSameKeysWithTheReadersAnchors() throws {
        let deleted = DeletedRecord(
            identity: RecordIdentity(source: "clinic", resourceType: FHIRResourceType("Condition"), identifier: "c1"), clinicalType: .condition,
            deletedDate: Self.added, anchor: QueryAnchor(rawValue: 9))
        #expect(try Self.keys(RecordJSON.deleted(deleted, anchor: "9")) == ["source", "resourceType", "id", "clinicalType", "deletedDate", "anchor"])
        let result = AnchoredQueryResult(added: [try Self.record()], addedAnchors: [QueryAnchor(rawValue: 4)], deleted: [deleted], anchor: QueryAnchor(rawValue: 9))
        let tokens = AnchorCoding(encode: { "token-\($0.rawValue)" }, decode: { _ in nil })
        let feed = try RecordJSON.changes(result, anchors: tokens).jsonValue()
        #expect(feed.objectValue?.keys == ["added", "deleted", "anchor"])
        #expect(feed["anchor"]?.stringValue == "token-9")
        #expect(feed["added"]?[0]?["anchor"]?.stringValue == "token-4")
        #expect(feed["deleted"]?[0]?["anchor"]?.stringValue == "token-9")
        #expect(try RecordJSON.changes(result, anchors: .store).jsonValue()["anchor"]?.stringValue == "9")
    }

    @Test func aCardShowsAppsOnlyWhatHealthKitHandsThem() throws {
        let record = VerifiableClinicalRecord(
            recordTypes: ["https://smarthealth.cards#immunization"], issuerIdentifier: "https://issuer.example",
            subject: .init(fullName: "Pat", dateOfBirth: FHIRDate("1980-05-06")), issuedDate: Self.added, relevantDate: nil, expirationDate: nil,
            itemNames: ["Vaccine"], dataRepresentation: Data("h.p.s".utf8), fhirResourceTypes: ["Immunization"])
        let shared = ["id", "sourceType", "issuerIdentifier", "recordTypes", "itemNames", "subject", "issuedDate", "relevantDate", "expirationDate"]
        let verified = StoredVerifiableRecord(record, identifier: "abc", status: .verified(trusted: true), addedDate: Self.added)
        #expect(try Self.keys(CardJSON.card(verified, for: .app)) == shared + ["dataRepresentation"])
        #expect(try Self.keys(CardJSON.card(verified, for: .owner)) == shared + ["addedDate", "status", "trusted", "dataRepresentation"])
        let unverified = StoredVerifiableRecord(record, identifier: "abc", status: .unverified(codes: ["jws.signature"]), addedDate: Self.added)
        let owner = try CardJSON.card(unverified, for: .owner).jsonValue()
        #expect(owner["errors"]?[0]?.stringValue == "jws.signature")
        #expect(owner["dataRepresentation"]?.stringValue == "h.p.s")
        #expect(owner["subject"]?["dateOfBirth"]?.stringValue == "1980-05-06")
        #expect(try Self.keys(CardJSON.card(unverified, for: .app)) == shared + ["dataRepresentation"])
    }

    @Test func aSampleUsesTheRecordsKeysWhereTheIdeaIsTheSame() throws {
        let sample = try QuantitySample(
            uuid: UUID(uuidString: "6F1A3E0C-7C1B-4C8E-9B0A-2F4C9D1E5A77")!, type: .bloodGlucose, value: "5.40", unit: "mmol/L", startDate: Self.added,
            source: RecordSource(identifier: "meter", name: "Meter"), device: SampleDevice(identifier: "GMC-1"), metadata: ["b": "2", "a": "1"])
        let stored = StoredQuantitySample(sample: sample, addedDate: Self.added, anchor: QueryAnchor(rawValue: 3), signatureStatus: .unsigned)
        let json = try SampleJSON.sample(stored).jsonValue()
        #expect(json.objectValue?.keys == [
            "id", "type", "typeIdentifier", "value", "unit", "startDate", "endDate", "source", "sourceName", "device", "metadata", "signature",
            "addedDate", "anchor",
        ])
        #expect(json["id"]?.stringValue == "6F1A3E0C-7C1B-4C8E-9B0A-2F4C9D1E5A77")
        #expect(json["value"]?.stringValue == "5.40")
        #expect(json["anchor"]?.stringValue == "3")
        #expect(json["metadata"]?.objectValue?.keys == ["a", "b"])
        #expect(json["device"]?["identifier"]?.stringValue == "GMC-1")
        #expect(json["startDate"]?.stringValue == "2023-11-14T22:13:20.000Z")
    }
}
