import FHIR
import Foundation

/// A built International Patient Summary: the document Bundle, and how many entries each section
/// holds.
public struct PatientSummary: Sendable {
    /// How many entries a section holds (0 for an empty one, which then says why).
    public struct SectionCount: Sendable, Hashable {
        public let section: SummarySection
        public let count: Int
    }

    /// The `document` Bundle: the Composition first, then the Patient, the author and every entry.
    public let bundle: JSONObject
    /// Every section the Composition has, in its order.
    public let sections: [SectionCount]

    /// The Bundle as minified JSON.
    public var data: Data { Data(JSONWriter.minified(.object(bundle))) }
}
