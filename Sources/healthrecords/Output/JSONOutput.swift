import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

/// Builds the `--json` output of commands with our own JSON writer (exact text, stable order).
enum JSONOutput {
    static func print(_ value: JSONValue) {
        Swift.print(JSONWriter.pretty(value))
    }

    static func string(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
    static func int(_ n: Int) -> JSONValue { .number(JSONNumber(n)) }
    static func date(_ d: Date?) -> JSONValue { d.map { .string(iso8601($0)) } ?? .null }

    static func iso8601(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: d)
    }

    static func record(_ r: ClinicalRecord) -> JSONValue {
        .object(JSONObject([
            "source": .string(r.source.identifier),
            "resourceType": .string(r.fhirResource.resourceType.rawValue),
            "identifier": .string(r.fhirResource.identifier),
            "clinicalType": .string(r.clinicalType.name),
            "displayName": .string(r.displayName),
            "fhirVersion": .string(r.fhirResource.fhirVersion.stringRepresentation),
            "clinicalDate": string(r.clinicalDate?.text),
            "addedDate": date(r.addedDate),
        ]))
    }

    static func outcome(_ o: ImportOutcome) -> [JSONMember] {
        [
            JSONMember("inserted", int(o.inserted)), JSONMember("updated", int(o.updated)),
            JSONMember("unchanged", int(o.unchanged)), JSONMember("notRecords", int(o.notRecords)),
        ]
    }
}
