import HealthStoreCore

extension RecordQuery {
    /// The names a record query reads.
    public static let parameterNames: [ParameterName] = [.type, .resourceType, .source, .from, .to, .addedFrom, .addedTo, .limit, .sort]

    /// Reads a record query (HealthKit's sample query over clinical records):
    ///
    /// - `type`: a clinical type; every type when absent.
    /// - `resourceType`: a FHIR resource type, e.g. `Observation`.
    /// - `source`: a source identifier.
    /// - `from`, `to`: the clinical date, by the rule of ``DateBound``.
    /// - `addedFrom`, `addedTo`: when the store added the record, by the same rule.
    /// - `limit`: the most records, cut to `limitCap`.
    /// - `sort`: `added` (the default), `clinical`, `-added` or `-clinical` (newest first).
    ///
    /// Other names are not read: a front end passes what it has and this decides what counts.
    public init(parameters p: QueryParameters, limitCap: Int? = nil) throws(ParameterError) {
        let type = try p.clinicalType()
        var predicates: [RecordPredicate] = []
        if let resourceType = try p.resourceType() { predicates.append(.fhirResourceType(resourceType)) }
        if let source = try p.text(.source) { predicates.append(.source(source)) }
        if let range = try DateRange.parse(from: .from, to: .to, in: p) { predicates.append(.clinicalDate(from: range.from, to: range.to)) }
        if let range = try DateRange.parse(from: .addedFrom, to: .addedTo, in: p) { predicates.append(.addedDate(from: range.from, to: range.to)) }
        let limit = try p.limit(cap: limitCap)
        let sort = try p.sort(keys: RecordSort.Key.self).map { RecordSort($0.key, ascending: $0.ascending) } ?? .addedAscending
        self.init(type: type, predicate: predicates.isEmpty ? nil : .and(predicates), limit: limit, sort: sort)
    }
}
