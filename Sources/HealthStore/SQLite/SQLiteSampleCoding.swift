import ClinicalRecords
import FHIR
import Foundation
import GRDB

/// How sample fields become (sealed) column values and come back.
enum SQLiteSampleCoding {
    static let selectColumns = """
        SELECT q.id, s.identifier, s.name, q.quantity_type, q.sample_uuid, q.value, q.unit, q.start_date, q.end_date,
        q.device, q.metadata, q.signature_status, q.added_date, q.anchor FROM quantity_sample q JOIN source s ON s.id = q.source_id
        """

    /// The identity key standing in for the sample's UUID in indexes.
    static func identity(_ uuid: UUID, _ sealer: any RecordSealer) -> Data {
        sealer.identityKey(["quantity-sample", uuid.uuidString])
    }

    /// A digest of everything the sample holds, to tell a repeated save from a conflicting one.
    static func digest(_ sample: QuantitySample, _ sealer: any RecordSealer) -> Data {
        let canonical = JSONValue.object(JSONObject([
            "type": .string(sample.type.identifier),
            "value": .string(sample.value),
            "unit": .string(sample.unit),
            "start": .string(String(milliseconds(sample.startDate))),
            "end": .string(String(milliseconds(sample.endDate))),
            "source": .string(sample.source.identifier),
            "device": sample.device.map(deviceJSON) ?? .null,
            "metadata": metadataJSON(sample.metadata),
        ]))
        return sealer.contentDigest(Data(JSONWriter.minified(canonical)))
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    static func seconds(_ date: Date) -> Double { Double(milliseconds(date)) / 1000 }

    static func deviceJSON(_ device: SampleDevice) -> JSONValue {
        var members = [JSONMember("identifier", .string(device.identifier))]
        if let name = device.name { members.append(JSONMember("name", .string(name))) }
        if let manufacturer = device.manufacturer { members.append(JSONMember("manufacturer", .string(manufacturer))) }
        if let model = device.model { members.append(JSONMember("model", .string(model))) }
        return .object(JSONObject(members))
    }

    /// Metadata as a JSON object with keys in UTF-8 byte order.
    static func metadataJSON(_ metadata: [String: String]) -> JSONValue {
        let keys = metadata.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return .object(JSONObject(keys.map { JSONMember($0, .string(metadata[$0] ?? "")) }))
    }

    static func seal(_ text: String, _ sealer: any RecordSealer) throws -> Data { try sealer.seal(Data(text.utf8)) }

    static func seal(_ json: JSONValue, _ sealer: any RecordSealer) throws -> Data { try sealer.seal(Data(JSONWriter.minified(json))) }

    /// Reads a row selected with ``selectColumns``.
    static func stored(_ row: Row, sealer: any RecordSealer) throws -> StoredQuantitySample {
        let uuidText = try text(row[4], sealer)
        guard let uuid = UUID(uuidString: uuidText) else { throw HealthStoreError.corruptRecord("sample with identity \(uuidText)") }
        let typeName: String = row[3]
        guard let type = QuantityType(rawValue: typeName) else {
            throw HealthStoreError.corruptRecord("sample \(uuidText) has unknown type \(typeName)")
        }
        let device = try (row[9] as Data?).map { try self.device(try sealer.open($0), uuid: uuidText) }
        let metadata = try self.metadata(try sealer.open(row[10]), uuid: uuidText)
        let sample = QuantitySample(
            unchecked: uuid, type: type, value: try text(row[5], sealer), unit: try text(row[6], sealer),
            startDate: Date(timeIntervalSince1970: row[7]), endDate: Date(timeIntervalSince1970: row[8]),
            source: RecordSource(identifier: try text(row[1], sealer), name: try text(row[2], sealer)), device: device, metadata: metadata)
        return StoredQuantitySample(
            sample: sample, addedDate: Date(timeIntervalSince1970: row[12]), anchor: QueryAnchor(rawValue: row[13]),
            signatureStatus: SampleSignatureStatus(storedText: try text(row[11], sealer)))
    }

    /// Reads a tombstone row: anchor, source identifier, type, sealed UUID, deleted date.
    static func deleted(_ row: Row, sealer: any RecordSealer) throws -> DeletedSample {
        let uuidText = try text(row[3], sealer)
        let typeName: String = row[2]
        guard let uuid = UUID(uuidString: uuidText), let type = QuantityType(rawValue: typeName) else {
            throw HealthStoreError.corruptRecord("sample tombstone \(uuidText) of type \(typeName)")
        }
        return DeletedSample(
            uuid: uuid, type: type, source: try text(row[1], sealer), deletedDate: Date(timeIntervalSince1970: row[4]),
            anchor: QueryAnchor(rawValue: row[0]))
    }

    private static func text(_ sealed: Data, _ sealer: any RecordSealer) throws -> String {
        String(decoding: try sealer.open(sealed), as: UTF8.self)
    }

    private static func object(_ data: Data, _ what: String, uuid: String) throws -> JSONObject {
        guard let object = (try? JSONReader().read(data))?.objectValue else {
            throw HealthStoreError.corruptRecord("sample \(uuid) has damaged \(what)")
        }
        return object
    }

    private static func device(_ data: Data, uuid: String) throws -> SampleDevice {
        let o = try object(data, "device", uuid: uuid)
        guard let identifier = o["identifier"]?.stringValue else {
            throw HealthStoreError.corruptRecord("sample \(uuid) has a device without identifier")
        }
        return SampleDevice(
            identifier: identifier, name: o["name"]?.stringValue, manufacturer: o["manufacturer"]?.stringValue,
            model: o["model"]?.stringValue)
    }

    private static func metadata(_ data: Data, uuid: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for member in try object(data, "metadata", uuid: uuid) {
            guard let value = member.value.stringValue else {
                throw HealthStoreError.corruptRecord("sample \(uuid) has metadata \(member.key) that is not text")
            }
            result[member.key] = value
        }
        return result
    }
}
