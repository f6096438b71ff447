import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore
import SMARTAuthorization

/// What an in-memory search filter sees of a resource: its JSON, its consent category, the id
/// it is served under and when the store first added it.
struct SearchSubject: Sendable {
    let json: JSONObject
    let category: ConsentCategory
    let servedID: String
    let lastUpdated: Date
}

/// A search condition decided in memory, on a resource SQL could not judge.
typealias SearchFilter = @Sendable (SearchSubject) -> Bool

/// A FHIR search compiled for the store: the conditions SQL decides (types — narrowed to those
/// the token's scopes name —, consent categories, the R4 release, served ids, clinical and
/// added dates, order) in a
/// ``ResourceQuery``, and the ones only the JSON can answer (codes, names, `ne` on a code…) as
/// filters. A search without filters runs as one count and one page query; with filters the
/// snapshot is read and filtered in memory.
struct FHIRSearchPlan: Sendable {
    /// The SQL part; the search adds the snapshot, limit and offset.
    var query: ResourceQuery
    /// The in-memory part; all must hold.
    var filters: [SearchFilter] = []
    /// A condition that nothing can meet (another patient), known before reading anything.
    var matchesNothing = false
    /// The page size.
    var count: Int
    /// `$everything`: whether the person's Patient leads the results.
    var includesPatient = false
    /// `$everything` under a granular scope: the resources of the types the scope reaches only
    /// in part must be looked at (a search has this among its ``filters``).
    var scopeFilter: SearchFilter?

    /// The page size when `_count` is not given.
    static let defaultCount = 50

    /// What a search is compiled against.
    struct Context: Sendable {
        /// The person's Patient id.
        let personID: String
        /// The FHIR base URL (`…/fhir`), for `patient` values given as absolute references.
        let fhirBase: String
        /// What the token's scopes reach with a search; `nil` for no narrowing.
        let reach: ResourceReach?
        /// The largest page.
        let countCap: Int
    }

    /// Compiles a search.
    ///
    /// - Throws: ``FHIRRequestError/invalidParameter(name:value:reason:)`` naming the first
    ///   parameter whose value cannot be used.
    static func compile(_ request: FHIRSearchRequest, _ context: Context) throws(FHIRRequestError) -> FHIRSearchPlan {
        let type = request.resourceType
        var plan = FHIRSearchPlan(query: ResourceQuery(resourceTypes: [FHIRResourceType(type)], release: .r4), count: min(defaultCount, context.countCap))
        var pushed: Set<ConsentCategory>? = nil
        let reach = context.reach
        if request.everything {
            var types = try everythingTypes(request)
            if let reach { types = types.filter { reach.extent(of: $0) != nil } }
            plan.includesPatient = types.contains("Patient") && (reach.map { $0.extent(of: "Patient") == .whole } ?? true)
            plan.query.resourceTypes = Set(types.filter { $0 != "Patient" }.map { FHIRResourceType($0) })
            if let reach, types.contains(where: { reach.extent(of: $0) != .whole }) { plan.scopeFilter = { reach.admits($0.json) } }
        } else if let reach {
            switch reach.extent(of: type) {
            case nil: plan.matchesNothing = true
            case .whole?: break
            case .categories?: plan.filters.append { reach.admits($0.json) }
            }
        }
        for p in request.parameters {
            let base = String(p.name.prefix { $0 != ":" })
            if base != p.name { throw .invalidParameter(name: p.name, value: p.value, reason: "uses a modifier this server does not answer") }
            switch base {
            case "_count":
                guard let n = Int(p.value), n >= 0 else { throw .invalidParameter(name: base, value: p.value, reason: "is not a whole number ≥ 0") }
                plan.count = min(n, context.countCap)
                continue
            case "_sort":
                plan.query.sort = try sort(p.value, type: type)
                continue
            case "_type":
                continue
            case "_since":
                guard let date = FHIRDate(p.value.replacingOccurrences(of: " ", with: "+")), date.precision >= .second else {
                    throw .invalidParameter(name: base, value: p.value, reason: "is not an instant (2024-05-01T10:00:00Z)")
                }
                plan.query.addedDate.append(DateCondition(.startsAtOrAfter(date.date)))
                continue
            default: break
            }
            guard let definition = FHIRResourceTypes.parameter(base, of: type) else { continue }
            try plan.add(definition, value: p.value, type: type, context, pushed: &pushed)
        }
        plan.query.categories = pushed
        return plan
    }

    private mutating func add(
        _ definition: SearchParameterDefinition, value: String, type: String, _ context: Context, pushed: inout Set<ConsentCategory>?
    ) throws(FHIRRequestError) {
        let name = definition.name
        switch definition.kind {
        case .id:
            let ids = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            if type == "Patient" {
                filters.append { ids.contains($0.servedID) }
            } else {
                let keys = ids.compactMap(ResourceKey.init(hex:))
                query.keys = query.keys.map { held in held.filter { keys.contains($0) } } ?? keys
            }
        case .lastUpdated:
            let conditions = try FHIRDateParameter.conditions(name: name, value: value)
            if type == "Patient" {
                filters.append { FHIRDateParameter.holds(conditions, start: $0.lastUpdated, end: nil) }
            } else {
                query.addedDate += conditions
            }
        case .clinicalDate:
            query.clinicalDate += try FHIRDateParameter.conditions(name: name, value: value)
        case .date(let element):
            let conditions = try FHIRDateParameter.conditions(name: name, value: value)
            filters.append { subject in
                guard let date = subject.json.date(element) else { return false }
                let span = FHIRDateParameter.span(date)
                return FHIRDateParameter.holds(conditions, start: span.start, end: span.end)
            }
        case .patient:
            let mine: Set<String> = [context.personID, "Patient/" + context.personID, context.fhirBase + "/Patient/" + context.personID]
            if !value.split(separator: ",").contains(where: { mine.contains(String($0)) }) { matchesNothing = true }
        case .string(let elements):
            let needles = value.split(separator: ",").map(String.init)
            filters.append { subject in
                needles.contains { needle in elements.contains { subject.json[$0].map { FHIRStringMatch.matches(needle, in: $0) } ?? false } }
            }
        case .token(let elements):
            let tokens = try FHIRToken.values(name: name, value: value)
            if type == "Observation", name == "category" {
                addObservationCategory(tokens)
                let mapped = Set(tokens.flatMap { Self.observationCategories($0) })
                pushed = pushed.map { $0.intersection(mapped) } ?? mapped
            } else {
                filters.append { subject in tokens.contains { $0.matches(subject.json, elements: elements) } }
            }
        }
    }

    /// Observation categories that are consent categories (`laboratory`, `vital-signs`,
    /// `social-history`) are decided in SQL by the category the store filed the Observation
    /// under; any other code (`survey`, `exam`…) also by its codings, in memory.
    private mutating func addObservationCategory(_ tokens: [FHIRToken]) {
        guard tokens.contains(where: { Self.consentCategory($0) == nil }) else { return }
        filters.append { subject in
            tokens.contains { token in
                if let category = Self.consentCategory(token) { return subject.category == category }
                return token.matches(subject.json, elements: ["category"])
            }
        }
    }

    private static let observationCategorySystems: Set<String> = [CodeSystem.observationCategory]

    /// The consent category an Observation category token stands for, when it stands for one.
    static func consentCategory(_ token: FHIRToken) -> ConsentCategory? {
        guard token.system == nil || observationCategorySystems.contains(token.system ?? "") else { return nil }
        switch token.code {
        case "laboratory": return .clinical(.labResult)
        case "vital-signs": return .clinical(.vitalSign)
        case "social-history": return .context(.socialHistory)
        default: return nil
        }
    }

    /// The consent categories an Observation with a matching category code can be filed under.
    static func observationCategories(_ token: FHIRToken) -> [ConsentCategory] {
        if let category = consentCategory(token) { return [category] }
        return [.clinical(.labResult), .clinical(.vitalSign), .context(.socialHistory), .context(.otherObservations)]
    }

    /// `_sort`: `_lastUpdated` or the type's clinical-date parameter, `-` for descending.
    private static func sort(_ value: String, type: String) throws(FHIRRequestError) -> RecordSort {
        let descending = value.hasPrefix("-")
        let key = descending ? String(value.dropFirst()) : value
        if key == "_lastUpdated" { return RecordSort(.added, ascending: !descending) }
        if let d = FHIRResourceTypes.parameter(key, of: type), d.kind == .clinicalDate { return RecordSort(.clinical, ascending: !descending) }
        let dates = (FHIRResourceTypes.parameters[type] ?? []).filter { $0.kind == .clinicalDate }.map(\.name)
        throw .invalidParameter(name: "_sort", value: value, reason: "is not a sort this server answers (\((dates + ["_lastUpdated"]).joined(separator: ", ")), each with an optional -)")
    }

    /// The types `$everything` reads: `_type`'s (each served), or every served type.
    private static func everythingTypes(_ request: FHIRSearchRequest) throws(FHIRRequestError) -> [String] {
        guard let p = request.parameters.last(where: { $0.name == "_type" }) else { return FHIRResourceTypes.served }
        let types = p.value.split(separator: ",").map(String.init)
        for t in types where !FHIRResourceTypes.isServed(t) {
            throw .invalidParameter(name: "_type", value: p.value, reason: "names a resource type this server does not serve (\(t))")
        }
        return types
    }
}
