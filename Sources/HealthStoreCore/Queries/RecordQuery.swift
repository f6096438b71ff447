import ClinicalRecords

/// How results are ordered.
public struct RecordSort: Sendable, Hashable {
    /// The date to order by.
    public enum Key: String, Sendable, Hashable, CaseIterable {
        /// When the record was added to the store.
        case added
        /// The clinical date from the resource (records without one come last).
        case clinical
    }

    /// The date to order by.
    public var key: Key
    /// Oldest first when `true`.
    public var ascending: Bool

    /// Makes a sort order; the default is the store's insertion order (``addedAscending``).
    public init(_ key: Key = .added, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }

    /// Oldest added first: the store's insertion order.
    public static let addedAscending = RecordSort(.added, ascending: true)
}

/// A query for records of one clinical type, like HealthKit's `HKSampleQuery`.
public struct RecordQuery: Sendable, Hashable {
    /// The clinical type; `nil` asks for records of every type.
    public var type: ClinicalType?
    /// Conditions beyond ``type`` (source, dates, identity, visibility), ANDed with it; `nil` for none.
    public var predicate: RecordPredicate?
    /// The most records to return; `nil` for all.
    public var limit: Int?
    /// The order of the results.
    public var sort: RecordSort

    /// Makes a query; unless told otherwise, it returns every match in the store's insertion order.
    public init(type: ClinicalType?, predicate: RecordPredicate? = nil, limit: Int? = nil, sort: RecordSort = .addedAscending) {
        self.type = type
        self.predicate = predicate
        self.limit = limit
        self.sort = sort
    }
}
