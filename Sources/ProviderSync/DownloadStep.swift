import Foundation

/// One search of a download: a Patient read, `$everything`, or a type searched by patient
/// (Observation perhaps by category). Its key names it in checkpoints and reports.
struct DownloadStep: Sendable, Hashable, Codable {
    /// What is asked.
    enum Kind: String, Sendable, Hashable, Codable {
        case patient
        case everything
        case search
    }

    var kind: Kind
    /// The resource type searched (Patient for the read and `$everything`).
    var resourceType: String
    /// An Observation category, for servers that insist on one.
    var category: String?

    /// A stable name: `Patient`, `$everything`, `Observation`, `Observation?category=laboratory`.
    var key: String {
        switch kind {
        case .patient: return "Patient"
        case .everything: return "$everything"
        case .search: return category.map { resourceType + "?category=" + $0 } ?? resourceType
        }
    }

    /// The first URL of the step; incremental steps ask only for what changed since a date.
    func url(base: URL, patient: String, count: Int, since: Date?) -> URL {
        let sinceText = since.map(Self.instant)
        switch kind {
        case .patient:
            return base.appending(fhirPath: "Patient/" + patient)
        case .everything:
            var query = [("_count", String(count))]
            if let sinceText { query.append(("_since", sinceText)) }
            return base.appending(fhirPath: "Patient/" + patient + "/$everything", query: query)
        case .search:
            var query = [("patient", patient)]
            if let category { query.append(("category", category)) }
            if let sinceText { query.append(("_lastUpdated", "gt" + sinceText)) }
            query.append(("_count", String(count)))
            return base.appending(fhirPath: resourceType, query: query)
        }
    }

    static func instant(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: date)
    }

    /// The patient-compartment types US Core (and the Health app) download, R4 names.
    static let r4Types = [
        "AllergyIntolerance", "CarePlan", "CareTeam", "Condition", "Coverage", "Device", "DiagnosticReport", "DocumentReference",
        "Encounter", "Goal", "Immunization", "MedicationDispense", "MedicationRequest", "MedicationStatement", "Observation",
        "Procedure", "ServiceRequest",
    ]
    /// The DSTU2 Argonaut Data Query types.
    static let dstu2Types = [
        "AllergyIntolerance", "CarePlan", "Condition", "Device", "DiagnosticReport", "DocumentReference", "Encounter", "Goal",
        "Immunization", "MedicationOrder", "MedicationStatement", "Observation", "Procedure",
    ]
    /// Observation categories searched one by one when a server refuses Observation without one.
    static let observationCategories = [
        "laboratory", "vital-signs", "social-history", "survey", "exam", "imaging", "procedure", "therapy", "activity",
    ]

    /// The steps of a download: the Patient, then `$everything` where offered, else a search per type.
    static func plan(_ capabilities: ProviderCapabilities, useEverything: Bool) -> [DownloadStep] {
        var steps = [DownloadStep(kind: .patient, resourceType: "Patient")]
        if useEverything && capabilities.offersEverything {
            steps.append(DownloadStep(kind: .everything, resourceType: "Patient"))
            return steps
        }
        for type in (capabilities.isDSTU2 ? dstu2Types : r4Types) where capabilities.serves(type) {
            steps.append(DownloadStep(kind: .search, resourceType: type))
        }
        return steps
    }
}
