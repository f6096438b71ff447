import ClinicalRecords
import FHIR
import Foundation

/// An opaque position in the store's change history, like HealthKit's `HKQueryAnchor`.
///
/// Every change (insert, update, delete) takes the next anchor, so an app that keeps the
/// anchor of its last query asks only for what changed since.
public struct QueryAnchor: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The position; 0 is "before everything".
    public let rawValue: Int64

    /// Makes an anchor from its serialized value.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// The anchor before any change.
    public static let initial = QueryAnchor(rawValue: 0)

    public static func < (a: QueryAnchor, b: QueryAnchor) -> Bool { a.rawValue < b.rawValue }

    public var description: String { String(rawValue) }
}

/// A query for what changed since an anchor, like HealthKit's `HKAnchoredObjectQuery`.
public struct AnchoredQuery: Sendable, Hashable {
    /// The clinical type; `nil` for every type.
    public var type: ClinicalType?
    /// Further conditions on added records.
    public var predicate: RecordPredicate?
    /// Changes after this anchor; `nil` for everything.
    public var anchor: QueryAnchor?
    /// The most changes to return; `nil` for all.
    public var limit: Int?

    /// Makes a query; pass the anchor of the previous result to get only what changed since.
    public init(type: ClinicalType?, predicate: RecordPredicate? = nil, anchor: QueryAnchor?, limit: Int? = nil) {
        self.type = type
        self.predicate = predicate
        self.anchor = anchor
        self.limit = limit
    }
}

/// A record that was deleted, as an anchored query reports it.
public struct DeletedRecord: Sendable, Hashable {
    /// The deleted record's identity.
    public let identity: RecordIdentity
    /// The clinical type the record had, kept with the deletion since the record itself is gone.
    public let clinicalType: ClinicalType
    /// When it was deleted.
    public let deletedDate: Date
    /// The anchor of the deletion.
    public let anchor: QueryAnchor

    /// Makes an entry as given; `anchor` is the deletion's own place in the change history.
    public init(identity: RecordIdentity, clinicalType: ClinicalType, deletedDate: Date, anchor: QueryAnchor) {
        self.identity = identity
        self.clinicalType = clinicalType
        self.deletedDate = deletedDate
        self.anchor = anchor
    }
}

/// What an anchored query returns.
public struct AnchoredQueryResult: Sendable {
    /// Records added or changed since the anchor, in anchor order.
    public let added: [ClinicalRecord]
    /// The anchor of each record in ``added`` (same order): the anchor of its latest change.
    public let addedAnchors: [QueryAnchor]
    /// Records deleted since the anchor, in anchor order.
    public let deleted: [DeletedRecord]
    /// The anchor to pass next time.
    public let anchor: QueryAnchor

    /// Makes a result; `addedAnchors` must have one anchor per added record.
    public init(added: [ClinicalRecord], addedAnchors: [QueryAnchor], deleted: [DeletedRecord], anchor: QueryAnchor) {
        precondition(added.count == addedAnchors.count, "one anchor per added record")
        self.added = added
        self.addedAnchors = addedAnchors
        self.deleted = deleted
        self.anchor = anchor
    }
}
