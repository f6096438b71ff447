import ClinicalRecords
import FHIR
import Foundation

/// The consent-category column as both engines store it.
///
/// Stores made before categories existed get theirs from a migration. SQL alone can place every
/// row but the non-clinical Observations, whose category (social history or another) is inside
/// the possibly sealed resource bytes: those rows are marked ``pending``, which no grant
/// matches, and get their category from ``classify(resourceType:identifier:fhirVersion:data:)``
/// the first time the store is opened with its key.
package enum CategoryCoding {
    /// The column value of a row still waiting for its category.
    package static let pending = "unclassified"

    /// The category of a stored row; an unknown value (a newer version's category) is `other`,
    /// which only a grant by name opens.
    package static func decode(_ raw: String?) -> ConsentCategory {
        raw.flatMap(ConsentCategory.init(rawValue:)) ?? .context(.other)
    }

    /// The context category of a row without a clinical type, from its stored bytes; unreadable
    /// bytes make it `other`, and so would a clinical answer (the row's clinical-type column says
    /// it is not one, and the two must never disagree).
    package static func classify(resourceType: String, identifier: String, fhirVersion: FHIRVersion, data: Data) -> ConsentCategory {
        let resource = FHIRResource(storedData: data, resourceType: FHIRResourceType(resourceType), identifier: identifier, fhirVersion: fhirVersion)
        guard let json = try? resource.json() else { return .context(.other) }
        let category = ClinicalClassifier().category(of: resource, json: json)
        return category.clinicalType == nil ? category : .context(.other)
    }

    /// An SQL expression giving a row's category from its `clinical_type` and `resource_type`
    /// columns (``pending`` for non-clinical Observations). Only this module's constant names
    /// are inlined, never input.
    package static var migrationExpression: String {
        let cases = ContextCategory.byResourceType.sorted { $0.key < $1.key }.map { "WHEN '\($0.key)' THEN '\($0.value.rawValue)'" }
        return "CASE WHEN clinical_type IS NOT NULL THEN clinical_type WHEN resource_type = 'Observation' THEN '\(pending)' ELSE CASE resource_type "
            + cases.joined(separator: " ") + " ELSE '\(ContextCategory.other.rawValue)' END END"
    }
}
