import FHIR
import Foundation
import HealthStoreCore

/// Rewrites the references in a served resource so that they resolve on this server.
///
/// - A provider's Patient is the person: `Patient/x` (relative or absolute, with or without
///   `_history`) and a `urn:uuid:` naming a Patient the same source holds become
///   `Patient/<person id>`. A Patient the source does not hold is not known to be the person,
///   and its reference is kept as it is (it resolves to nothing here).
/// - Another relative reference `Type/id` to a served type becomes `Type/<served id>`: the
///   served id is computed from the source, type and id, with no lookup (whether the target is
///   stored or visible is for a read of it to say).
/// - Everything else — absolute references to other servers, other `urn:` references, contained
///   `#` references — is kept.
struct ReferenceRewriter: Sendable {
    /// The person's Patient id.
    let personID: String
    /// The ids of the Patients each source holds, by source identifier.
    let sourcePatients: [String: Set<String>]
    /// The served id of a resource by source, type and id.
    let servedID: @Sendable (_ source: String, _ type: FHIRResourceType, _ id: String) -> String

    /// The new value of a reference in a resource from `source`, or `nil` to keep it.
    func rewrite(_ reference: String, source: String) -> String? {
        if reference.hasPrefix("#") { return nil }
        if reference.hasPrefix("urn:") {
            let uuid = reference.hasPrefix("urn:uuid:") ? String(reference.dropFirst(9)) : nil
            return uuid.map { sourcePatients[source]?.contains($0) == true } == true ? "Patient/" + personID : nil
        }
        var parts = reference.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count >= 4, parts[parts.count - 2] == "_history" { parts.removeLast(2) }
        guard parts.count >= 2 else { return nil }
        let type = String(parts[parts.count - 2]), id = String(parts[parts.count - 1])
        guard FHIRResource.isValidIdentifier(id) else { return nil }
        if type == "Patient" { return sourcePatients[source]?.contains(id) == true ? "Patient/" + personID : nil }
        let relative = parts.count == 2
        guard relative, FHIRResourceTypes.isServed(type) else { return nil }
        return type + "/" + servedID(source, FHIRResourceType(type), id)
    }
}
