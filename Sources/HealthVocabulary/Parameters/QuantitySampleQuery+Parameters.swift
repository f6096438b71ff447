import HealthStoreCore

extension QuantitySampleQuery {
    /// The names a sample query reads.
    public static let parameterNames: [ParameterName] = [.type, .source, .from, .to, .addedFrom, .addedTo, .limit, .sort]

    /// Reads a quantity-sample query (HealthKit's sample query over a quantity type):
    ///
    /// - `type`: a quantity type; every type when absent.
    /// - `source`: the identifier of the source that saved the samples.
    /// - `from`, `to`: the start date, by the rule of ``DateBound``.
    /// - `addedFrom`, `addedTo`: when the store saved the sample, by the same rule.
    /// - `limit`: the most samples, cut to `limitCap`.
    /// - `sort`: `start` (the default), `added`, `-start` or `-added` (newest first).
    public init(parameters p: QueryParameters, limitCap: Int? = nil) throws(ParameterError) {
        let type = try p.quantityType()
        self.init(type: type, predicate: try Self.predicate(p), limit: try p.limit(cap: limitCap),
                  sort: try p.sort(keys: SampleSort.Key.self).map { SampleSort($0.key, ascending: $0.ascending) } ?? .startAscending)
    }

    /// The conditions of `source`, `from`/`to` and `addedFrom`/`addedTo`; `nil` for none.
    static func predicate(_ p: QueryParameters) throws(ParameterError) -> SamplePredicate? {
        var predicates: [SamplePredicate] = []
        if let source = try p.text(.source) { predicates.append(.source(source)) }
        if let range = try DateRange.parse(from: .from, to: .to, in: p) { predicates.append(.startDate(from: range.from, to: range.to)) }
        if let range = try DateRange.parse(from: .addedFrom, to: .addedTo, in: p) { predicates.append(.addedDate(from: range.from, to: range.to)) }
        return predicates.isEmpty ? nil : .and(predicates)
    }
}
