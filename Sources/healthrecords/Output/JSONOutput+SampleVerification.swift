import FHIR
import Foundation
import HealthStoreCore
import SampleSignatures

extension JSONOutput {
    /// The verdict on one signed sample, keyed by the sample's `id` as ``SampleJSON`` keys it.
    static func verification(_ stored: StoredQuantitySample, _ outcome: SampleVerificationOutcome) -> JSONValue {
        let s = stored.sample
        let (result, reason, fields) = SampleVerdict.parts(outcome)
        return .object(JSONObject([
            "id": .string(s.uuid.uuidString),
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
