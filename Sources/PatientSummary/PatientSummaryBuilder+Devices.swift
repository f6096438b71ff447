import FHIR
import Foundation
import HealthStoreCore

extension PatientSummaryBuilder {
    /// The medical devices section's entries: the DeviceUseStatements providers sent, and for a
    /// Device that no statement names, a statement saying it is the patient's (IPS lists devices
    /// through DeviceUseStatements). The same device from two providers (same type and
    /// identifier) appears once.
    func devices(_ work: inout SummaryWork, patientURN: String) async throws -> (rows: [[String]], entries: [JSONValue], references: [JSONValue]) {
        func usable(_ stored: [StoredResource]) -> [(StoredResource, JSONObject)] {
            stored.sorted { $0.addedDate < $1.addedDate }.compactMap { s in
                guard s.resource.fhirVersion.fhirRelease == .r4, let object = try? s.resource.json(), admits(object) else { return nil }
                return (s, object)
            }
        }
        let devices = usable(try await context("Device", nil))
        let statements = usable(try await context("DeviceUseStatement", nil))
        var rows: [[String]] = []
        var entries: [JSONValue] = []
        var references: [JSONValue] = []
        var seen = Set<String>()
        var deviceURNs: [(urn: String, object: JSONObject)] = []
        // Devices first, so that the statements' references resolve to them.
        for (stored, object) in devices where seen.insert(Self.deviceKey(object)).inserted {
            let urn = work.urn(source: stored.source.identifier, type: "Device", id: stored.resource.identifier)
            let prepared = try await work.prepared(object, source: stored.source.identifier, urn: urn, patient: patientURN)
            entries.append(Self.entry(urn, prepared))
            deviceURNs.append((urn, object))
        }
        var named = Set<String>()
        for (stored, object) in statements {
            let urn = work.urn(source: stored.source.identifier, type: "DeviceUseStatement", id: stored.resource.identifier)
            let prepared = try await work.prepared(object, source: stored.source.identifier, urn: urn, patient: patientURN)
            // IPS wants the device named; a statement whose Device is not here says nothing.
            guard let device = prepared["device"]?.objectValue?.string("reference") else { continue }
            named.insert(device)
            let name = deviceURNs.first { $0.urn == device }.map { Self.deviceName($0.object) } ?? prepared["device"]?.objectValue?.string("display") ?? "Device"
            entries.append(Self.entry(urn, prepared))
            references.append(.object(JSONObject([JSONMember("reference", .string(urn))])))
            rows.append([name, prepared.string("status") ?? "", Self.deviceDate(prepared)])
        }
        for (deviceURN, object) in deviceURNs where !named.contains(deviceURN) {
            let urn = "urn:uuid:" + UUID().uuidString.lowercased()
            let status = object.string("status") == "active" ? "active" : "completed"
            let statement = JSONObject([
                JSONMember("resourceType", .string("DeviceUseStatement")), JSONMember("id", .string(String(urn.dropFirst(9)))),
                JSONMember("status", .string(status)), JSONMember("subject", .object(JSONObject([JSONMember("reference", .string(patientURN))]))),
                JSONMember("device", .object(JSONObject([JSONMember("reference", .string(deviceURN))]))),
            ])
            entries.append(Self.entry(urn, statement))
            references.append(.object(JSONObject([JSONMember("reference", .string(urn))])))
            rows.append([Self.deviceName(object), status, String((object.string("manufactureDate") ?? "").prefix(10))])
        }
        return (rows, entries, references)
    }

    /// What makes two Devices the same: their type and their identifier (UDI, or distinct one).
    static func deviceKey(_ o: JSONObject) -> String {
        let type = o["type"].map { JSONWriter.minifiedString($0) } ?? ""
        let udi = o.list("udiCarrier").first?.objectValue?.string("deviceIdentifier") ?? o.string("distinctIdentifier") ?? o.string("id") ?? ""
        return type + "\u{1F}" + udi
    }

    static func deviceName(_ o: JSONObject) -> String {
        if let type = o["type"]?.objectValue {
            if let text = type.string("text") { return text }
            if let display = type.list("coding").first?.objectValue?.string("display") { return display }
        }
        return o.list("deviceName").first?.objectValue?.string("name") ?? "Device"
    }

    static func deviceDate(_ o: JSONObject) -> String {
        let date = o.string("timingDateTime") ?? o["timingPeriod"]?.objectValue?.string("start") ?? o.string("recordedOn") ?? ""
        return String(date.prefix(10))
    }
}
