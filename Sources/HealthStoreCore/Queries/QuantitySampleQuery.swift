import Foundation

/// A condition on quantity samples, combinable with AND.
public indirect enum SamplePredicate: Sendable, Hashable {
    /// Samples saved by this source (by its identifier).
    case source(String)
    /// Samples whose start date is at or after `from` and before `to`.
    case startDate(from: Date?, to: Date?)
    /// Samples saved at or after `from` and before `to`.
    case addedDate(from: Date?, to: Date?)
    /// The samples with these identities.
    case uuids(Set<UUID>)
    /// Samples of these quantity types only, each only when saved at or before its window's
    /// anchor: what an app's grants let it see. An empty list matches nothing.
    case visible([TypeWindow<QuantityType>])
    /// All of these.
    case and([SamplePredicate])

    /// The predicates this one is an AND of, flattened.
    public var conjuncts: [SamplePredicate] {
        if case .and(let list) = self { return list.flatMap(\.conjuncts) }
        return [self]
    }
}

/// How sample results are ordered.
public struct SampleSort: Sendable, Hashable {
    /// The date to order by.
    public enum Key: String, Sendable, Hashable, CaseIterable {
        /// When the measurement started.
        case start
        /// When the sample was saved.
        case added
    }

    /// The date to order by.
    public var key: Key
    /// Oldest first when `true`.
    public var ascending: Bool

    /// Makes a sort order; the default is earliest measurement first (``startAscending``).
    public init(_ key: Key = .start, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }

    /// Earliest measurement first.
    public static let startAscending = SampleSort(.start, ascending: true)
}

/// A query for quantity samples, like HealthKit's `HKSampleQuery` over an `HKQuantityType`.
public struct QuantitySampleQuery: Sendable, Hashable {
    /// The quantity type; `nil` asks for samples of every type.
    public var type: QuantityType?
    /// Conditions beyond ``type`` (source, dates, identities, visibility), ANDed with it; `nil` for none.
    public var predicate: SamplePredicate?
    /// The most samples to return; `nil` for all.
    public var limit: Int?
    /// The order of the results.
    public var sort: SampleSort

    /// Makes a query; unless told otherwise, it returns every match, earliest measurement first.
    public init(type: QuantityType?, predicate: SamplePredicate? = nil, limit: Int? = nil, sort: SampleSort = .startAscending) {
        self.type = type
        self.predicate = predicate
        self.limit = limit
        self.sort = sort
    }
}

/// What saving samples did.
public struct SampleSaveOutcome: Sendable, Hashable {
    /// The samples that were new, as stored (anchor and signature status included).
    public var saved: [StoredQuantitySample]
    /// Samples already stored with the same values, left alone.
    public var unchanged: [UUID]

    /// Makes an outcome.
    public init(saved: [StoredQuantitySample] = [], unchanged: [UUID] = []) {
        self.saved = saved
        self.unchanged = unchanged
    }
}
