import FHIR
import Foundation
import HealthStoreCore
import SampleSignatures

extension JSONOutput {
    /// A stored sample; the value is a string so its exact text survives.
    static func sample(_ stored: StoredQuantitySample) -> JSONValue {
        let s = stored.sample
        let device: JSONValue = s.device.map { d in
            .object(JSONObject([
                "identifier": .string(d.identifier), "name": string(d.name), "manufacturer": string(d.manufacturer),
                "model": string(d.model),
            ]))
        } ?? .null
        let keys = s.metadata.keys.sorted()
        return .object(JSONObject([
            "uuid": .string(s.uuid.uuidString),
            "type": .string(s.type.name),
            "typeIdentifier": .string(s.type.identifier),
            "value": .string(s.value),
            "unit": .string(s.unit),
            "startDate": date(s.startDate),
            "endDate": date(s.endDate),
            "source": .string(s.source.identifier),
            "device": device,
            "metadata": .object(JSONObject(keys.map { JSONMember($0, .string(s.metadata[$0] ?? "")) })),
            "signature": .string(stored.signatureStatus.description),
            "addedDate": date(stored.addedDate),
            "anchor": .number(JSONNumber(uncheckedText: String(stored.anchor.rawValue))),
        ]))
    }

    /// The verdict on one signed sample.
    static func verification(_ stored: StoredQuantitySample, _ outcome: SampleVerificationOutcome) -> JSONValue {
        let s = stored.sample
        let (result, reason, fields) = SampleVerdict.parts(outcome)
        return .object(JSONObject([
            "uuid": .string(s.uuid.uuidString),
            "type": .string(s.type.name),
            "value": .string(s.value),
            "unit": .string(s.unit),
            "startDate": date(s.startDate),
            "result": .string(result),
            "reason": string(reason),
            "fields": .array(fields.map(JSONValue.string)),
        ]))
    }
}

/// A verification outcome taken apart for tables and JSON.
enum SampleVerdict {
    /// `valid`/`invalid`/`tampered`, the reason (for invalid and tampered), the tampered fields.
    static func parts(_ outcome: SampleVerificationOutcome) -> (String, String?, [String]) {
        switch outcome {
        case .valid: return ("valid", nil, [])
        case .invalid(let failure): return ("invalid", failure.description, [])
        case .tampered(let fields):
            return ("tampered", "stored \(fields.joined(separator: ", ")) differ\(fields.count == 1 ? "s" : "") from the signed content", fields)
        }
    }
}
