import Foundation

/// One type an app may read, and how far: records of the type first added at or before
/// ``addedThrough`` (every record, when `nil`) and dated at or after ``since`` (the record's
/// clinical date, or its added date when it has none; a sample's start; every date when `nil`).
///
/// This is the one storage primitive consent needs from an engine: ``RecordPredicate/visible(_:)``
/// and ``SamplePredicate/visible(_:)`` take a list of windows, and engines turn it into a
/// filter on type, first-added anchor and date. Which windows an app gets is decided by ``AppView``,
/// outside the engines.
public struct TypeWindow<Kind: Hashable & Sendable & RawRepresentable<String>>: Sendable, Hashable {
    /// The consent category or quantity type the window opens.
    public let type: Kind
    /// The last first-added anchor visible; `nil` for no limit.
    public let addedThrough: QueryAnchor?
    /// The earliest date visible (a grant's ``HistoryWindow``, fixed at the time of the query);
    /// `nil` for all of history.
    public let since: Date?
    /// The identity keys of the only records of the type visible (the records behind the
    /// medications the person picked for an app); `nil` for no such limit.
    public let only: [Data]?

    /// Makes a window; a `nil` `addedThrough` opens every record or sample of the type, a `nil`
    /// `since` every date, a `nil` `only` every record.
    public init(_ type: Kind, addedThrough: QueryAnchor?, since: Date? = nil, only: [Data]? = nil) {
        self.type = type
        self.addedThrough = addedThrough
        self.since = since
        self.only = only
    }
}
