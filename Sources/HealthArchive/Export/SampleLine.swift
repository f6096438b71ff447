import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

/// A quantity sample as one line of `samples/samples.ndjson`: the keys the app API uses for a
/// sample (`id`, `type`, `value`, `unit`, `startDate`, `endDate`, `source`, `sourceName`,
/// `device`, `metadata`), without what the store adds (added date, anchor, signature status),
/// which a store saving the sample again works out itself. The value keeps its exact text and
/// the signature travels in the metadata, so the sample comes back exactly, signature intact.
public enum SampleLine {
    /// The line's JSON (one line).
    public static func encode(_ s: QuantitySample) -> [UInt8] {
        let device: JSONValue = s.device.map { d in
            var members = [JSONMember("identifier", .string(d.identifier))]
            if let n = d.name { members.append(JSONMember("name", .string(n))) }
            if let m = d.manufacturer { members.append(JSONMember("manufacturer", .string(m))) }
            if let m = d.model { members.append(JSONMember("model", .string(m))) }
            return .object(JSONObject(members))
        } ?? .null
        return JSONWriter.minified(
            .object(
                JSONObject([
                    JSONMember("id", .string(s.uuid.uuidString)),
                    JSONMember("type", .string(s.type.name)),
                    JSONMember("value", .string(s.value)),
                    JSONMember("unit", .string(s.unit)),
                    JSONMember("startDate", .string(ExportDates.string(s.startDate))),
                    JSONMember("endDate", .string(ExportDates.string(s.endDate))),
                    JSONMember("source", .string(s.source.identifier)),
                    JSONMember("sourceName", .string(s.source.name)),
                    JSONMember("device", device),
                    JSONMember("metadata", .object(JSONObject(s.metadata.keys.sorted().map { JSONMember($0, .string(s.metadata[$0] ?? "")) }))),
                ])))
    }

    /// Reads a line back into a sample, checked as any new sample is.
    public static func decode(_ line: [UInt8]) throws(ArchiveLineError) -> QuantitySample {
        let value: JSONValue
        do { value = try JSONReader().read(line) } catch { throw ArchiveLineError("not JSON: \(error)") }
        guard let o = value.objectValue else { throw ArchiveLineError("not a JSON object") }
        func text(_ key: String) throws(ArchiveLineError) -> String {
            guard let s = o[key]?.stringValue else { throw ArchiveLineError("no \(key)") }
            return s
        }
        guard let uuid = UUID(uuidString: try text("id")) else { throw ArchiveLineError("id is not a UUID") }
        guard let type = QuantityType(name: try text("type")) else { throw ArchiveLineError("unknown type") }
        guard let start = ExportDates.date(try text("startDate")), let end = ExportDates.date(try text("endDate")) else {
            throw ArchiveLineError("a date is not an ISO 8601 instant")
        }
        var device: SampleDevice?
        if let d = o["device"], !d.isNull {
            guard let dev = d.objectValue, let id = dev["identifier"]?.stringValue else { throw ArchiveLineError("device has no identifier") }
            device = SampleDevice(identifier: id, name: dev["name"]?.stringValue, manufacturer: dev["manufacturer"]?.stringValue, model: dev["model"]?.stringValue)
        }
        var metadata: [String: String] = [:]
        if let m = o["metadata"] {
            guard let object = m.objectValue else { throw ArchiveLineError("metadata is not an object") }
            for member in object.members {
                guard let s = member.value.stringValue else { throw ArchiveLineError("metadata \(member.key) is not text") }
                metadata[member.key] = s
            }
        }
        do {
            return try QuantitySample(
                uuid: uuid, type: type, value: try text("value"), unit: try text("unit"), startDate: start, endDate: end,
                source: RecordSource(identifier: try text("source"), name: o["sourceName"]?.stringValue), device: device, metadata: metadata)
        } catch let e as ArchiveLineError {
            throw e
        } catch {
            throw ArchiveLineError("not a valid sample: \(error)")
        }
    }
}
