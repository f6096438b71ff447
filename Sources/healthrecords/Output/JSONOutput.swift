import FHIR
import Foundation
import HealthStoreCore
import HealthVocabulary

/// Builds the `--json` output of commands with our own JSON writer (exact text, stable order).
/// Records, cards and samples are written by the vocabulary the server uses (``RecordJSON``,
/// ``CardJSON``, ``SampleJSON``), so the two answer a query with the same JSON.
enum JSONOutput {
    static func print(_ value: JSONValue) {
        Swift.print(JSONWriter.pretty(value))
    }

    static func print(_ value: EncodedJSON) {
        Swift.print(value.prettyText)
    }

    static func string(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
    static func int(_ n: Int) -> JSONValue { .number(JSONNumber(n)) }
    static func date(_ d: Date?) -> JSONValue { d.map { .string(iso8601($0)) } ?? .null }

    /// Dates as every JSON answer writes them (``InstantText``).
    static func iso8601(_ d: Date) -> String { InstantText.string(d) }

    static func outcome(_ o: ImportOutcome) -> [JSONMember] {
        [
            JSONMember("inserted", int(o.inserted)), JSONMember("updated", int(o.updated)),
            JSONMember("unchanged", int(o.unchanged)), JSONMember("notRecords", int(o.notRecords)),
        ]
    }
}
