import ClinicalRecords
import FHIR
import Foundation

/// How sample fields become (sealed) column values and come back, the same for every engine.
package enum SampleCoding {
    /// The identity key standing in for the sample's UUID in indexes.
    package static func identity(_ uuid: UUID, _ sealer: any RecordSealer) -> Data {
        sealer.identityKey(["quantity-sample", uuid.uuidString])
    }

    /// A digest of everything the sample holds, to tell a repeated save from a conflicting one.
    package static func digest(_ sample: QuantitySample, _ sealer: any RecordSealer) -> Data {
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

    package static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// A date as stored: seconds since 1970, to the millisecond.
    package static func seconds(_ date: Date) -> Double { Double(milliseconds(date)) / 1000 }

    package static func deviceJSON(_ device: SampleDevice) -> JSONValue {
        var members = [JSONMember("identifier", .string(device.identifier))]
        if let name = device.name { members.append(JSONMember("name", .string(name))) }
        if let manufacturer = device.manufacturer { members.append(JSONMember("manufacturer", .string(manufacturer))) }
        if let model = device.model { members.append(JSONMember("model", .string(model))) }
        return .object(JSONObject(members))
    }

    /// Metadata as a JSON object with keys in UTF-8 byte order.
    package static func metadataJSON(_ metadata: [String: String]) -> JSONValue {
        let keys = metadata.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return .object(JSONObject(keys.map { JSONMember($0, .string(metadata[$0] ?? "")) }))
    }

    package static func seal(_ text: String, _ sealer: any RecordSealer) throws -> Data { try sealer.seal(Data(text.utf8)) }

    package static func seal(_ json: JSONValue, _ sealer: any RecordSealer) throws -> Data { try sealer.seal(Data(JSONWriter.minified(json))) }

    /// The sealed columns of a sample row, as stored.
    package struct SealedColumns {
        package var uuid: Data
        package var value: Data
        package var unit: Data
        package var device: Data?
        package var metadata: Data
        package var signatureStatus: Data

        package init(uuid: Data, value: Data, unit: Data, device: Data?, metadata: Data, signatureStatus: Data) {
            self.uuid = uuid
            self.value = value
            self.unit = unit
            self.device = device
            self.metadata = metadata
            self.signatureStatus = signatureStatus
        }
    }

    /// Seals a sample's sensitive fields.
    package static func sealed(_ sample: QuantitySample, status: SampleSignatureStatus, _ sealer: any RecordSealer) throws -> SealedColumns {
        SealedColumns(
            uuid: try seal(sample.uuid.uuidString, sealer), value: try seal(sample.value, sealer), unit: try seal(sample.unit, sealer),
            device: try sample.device.map { try seal(deviceJSON($0), sealer) }, metadata: try seal(metadataJSON(sample.metadata), sealer),
            signatureStatus: try seal(status.description, sealer))
    }

    /// Rebuilds a stored sample from its row's values.
    package static func stored(
        type typeName: String, sealed: SealedColumns, start: Double, end: Double, added: Double, anchor: Int64, source: RecordSource,
        sealer: any RecordSealer
    ) throws -> StoredQuantitySample {
        let uuidText = try text(sealed.uuid, sealer)
        guard let uuid = UUID(uuidString: uuidText) else { throw HealthStoreError.corruptRecord("sample with identity \(uuidText)") }
        guard let type = QuantityType(rawValue: typeName) else {
            throw HealthStoreError.corruptRecord("sample \(uuidText) has unknown type \(typeName)")
        }
        let device = try sealed.device.map { try self.device(try sealer.open($0), uuid: uuidText) }
        let metadata = try self.metadata(try sealer.open(sealed.metadata), uuid: uuidText)
        let sample = QuantitySample(
            unchecked: uuid, type: type, value: try text(sealed.value, sealer), unit: try text(sealed.unit, sealer),
            startDate: Date(timeIntervalSince1970: start), endDate: Date(timeIntervalSince1970: end), source: source, device: device,
            metadata: metadata)
        return StoredQuantitySample(
            sample: sample, addedDate: Date(timeIntervalSince1970: added), anchor: QueryAnchor(rawValue: anchor),
            signatureStatus: SampleSignatureStatus(storedText: try text(sealed.signatureStatus, sealer)))
    }

    /// Rebuilds a deleted-sample entry from a tombstone row's values.
    package static func deleted(
        anchor: Int64, source: String, type typeName: String, sealedUUID: Data, deletedDate: Double, sealer: any RecordSealer
    ) throws -> DeletedSample {
        let uuidText = try text(sealedUUID, sealer)
        guard let uuid = UUID(uuidString: uuidText), let type = QuantityType(rawValue: typeName) else {
            throw HealthStoreError.corruptRecord("sample tombstone \(uuidText) of type \(typeName)")
        }
        return DeletedSample(uuid: uuid, type: type, source: source, deletedDate: Date(timeIntervalSince1970: deletedDate), anchor: QueryAnchor(rawValue: anchor))
    }

    package static func text(_ sealed: Data, _ sealer: any RecordSealer) throws -> String {
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
