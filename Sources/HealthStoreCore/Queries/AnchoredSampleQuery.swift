import Foundation

/// A query for samples saved or deleted since an anchor, like HealthKit's
/// `HKAnchoredObjectQuery` over an `HKQuantityType`.
///
/// Samples and clinical records share the store's anchor counter, so one anchor orders every
/// change in the store; an anchor from a record query works here and the other way round.
public struct AnchoredSampleQuery: Sendable, Hashable {
    /// The quantity type; `nil` for every type.
    public var type: QuantityType?
    /// Further conditions on saved samples (deletions are filtered by type and source only).
    public var predicate: SamplePredicate?
    /// Changes after this anchor; `nil` for everything.
    public var anchor: QueryAnchor?
    /// The most changes to return; `nil` for all.
    public var limit: Int?

    /// Makes a query; pass the anchor of the previous result to get only what changed since.
    public init(type: QuantityType?, predicate: SamplePredicate? = nil, anchor: QueryAnchor?, limit: Int? = nil) {
        self.type = type
        self.predicate = predicate
        self.anchor = anchor
        self.limit = limit
    }
}

/// A sample that was deleted, as an anchored sample query reports it.
public struct DeletedSample: Sendable, Hashable {
    /// The deleted sample's identity.
    public let uuid: UUID
    /// The quantity type the sample had; an anchored query filters deletions by type and source only.
    public let type: QuantityType
    /// The source that had saved it.
    public let source: String
    /// When it was deleted.
    public let deletedDate: Date
    /// The anchor of the deletion.
    public let anchor: QueryAnchor

    /// Makes an entry as given; `anchor` is the deletion's own place in the change history.
    public init(uuid: UUID, type: QuantityType, source: String, deletedDate: Date, anchor: QueryAnchor) {
        self.uuid = uuid
        self.type = type
        self.source = source
        self.deletedDate = deletedDate
        self.anchor = anchor
    }
}

/// What an anchored sample query returns.
public struct AnchoredSampleQueryResult: Sendable {
    /// Samples saved since the anchor, in anchor order.
    public let added: [StoredQuantitySample]
    /// Samples deleted since the anchor, in anchor order.
    public let deleted: [DeletedSample]
    /// The anchor to pass next time.
    public let anchor: QueryAnchor

    /// Makes a result as given; nothing checks that the lists are in anchor order.
    public init(added: [StoredQuantitySample], deleted: [DeletedSample], anchor: QueryAnchor) {
        self.added = added
        self.deleted = deleted
        self.anchor = anchor
    }
}
