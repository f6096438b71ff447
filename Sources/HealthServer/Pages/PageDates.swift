import ClinicalRecords
import FHIR
import HealthVocabulary
import Foundation

/// Dates as the pages show them: a day (`2024-03-01`), or a day and a minute.
enum PageDates {
    /// The day of a FHIR date, or "—" when there is none.
    static func short(_ d: FHIRDate?) -> String { d.map { String($0.text.prefix(10)) } ?? "—" }
    /// The day of an instant (UTC).
    static func short(_ d: Date) -> String { String(InstantText.string(d).prefix(10)) }
    /// The day and minute of an instant (UTC).
    static func dateTime(_ d: Date) -> String { String(InstantText.string(d).prefix(16)).replacingOccurrences(of: "T", with: " ") }
}
