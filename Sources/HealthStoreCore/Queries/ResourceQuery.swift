import Synchronization
import ClinicalRecords
import FHIR
import Foundation

/// A query for stored resources of any kind — clinical records and context resources (the
/// Patient, Encounters…) alike — as a FHIR search needs them: by FHIR type, consent category,
/// release, paging snapshot, clinical and added dates, in a stable order, a page at a time.
///
/// Every condition is decided in SQL, so a page costs one statement and its total one more
/// (``HealthStore/resources(_:visible:countingTotal:)``).
public struct ResourceQuery: Sendable, Hashable {
    /// Resources of these FHIR types; `nil` for every type.
    public var resourceTypes: Set<FHIRResourceType>?
    /// Resources of these FHIR types are left out (applied after ``resourceTypes``).
    public var excludedResourceTypes: Set<FHIRResourceType>
    /// Resources of these consent categories only; `nil` for every category. An app's grants
    /// narrow it further (``AppView/resources(_:countingTotal:)``).
    public var categories: Set<ConsentCategory>?
    /// Resources stored as this FHIR release only; `nil` for every release.
    public var release: FHIRRelease?
    /// The paging snapshot: only resources first added at or before this anchor. `nil` takes
    /// the store as it is, and the page says which anchor that was (``ResourcePage/snapshot``).
    public var addedThrough: QueryAnchor?
    /// The resources with these keys only (a FHIR `_id` search or a read); `nil` for any.
    public var keys: [ResourceKey]?
    /// Conditions on the clinical date, all of which must hold; a resource without a clinical
    /// date matches none.
    public var clinicalDate: [DateCondition]
    /// Conditions on the date the resource was first added, all of which must hold.
    public var addedDate: [DateCondition]
    /// The order; `nil` for the order the store first added them in.
    public var sort: RecordSort?
    /// The most resources to return; `nil` for all.
    public var limit: Int?
    /// How many resources of the order to skip before the page.
    public var offset: Int

    /// Makes a query; unless told otherwise it returns every resource of the types, in the
    /// order the store first added them.
    public init(
        resourceTypes: Set<FHIRResourceType>?, excludedResourceTypes: Set<FHIRResourceType> = [], categories: Set<ConsentCategory>? = nil,
        release: FHIRRelease? = nil, addedThrough: QueryAnchor? = nil, keys: [ResourceKey]? = nil, clinicalDate: [DateCondition] = [],
        addedDate: [DateCondition] = [], sort: RecordSort? = nil, limit: Int? = nil, offset: Int = 0
    ) {
        self.resourceTypes = resourceTypes
        self.excludedResourceTypes = excludedResourceTypes
        self.categories = categories
        self.release = release
        self.addedThrough = addedThrough
        self.keys = keys
        self.clinicalDate = clinicalDate
        self.addedDate = addedDate
        self.sort = sort
        self.limit = limit
        self.offset = offset
    }
}

/// A condition on a date that covers a span of time: any one of its bounds holds.
///
/// A clinical date covers the span its precision gives (`2024` the whole year, `2024-05-01`
/// the day, `2024-05-01T10:00Z` the minute; ``FHIRDate/interval``), so FHIR's date-search
/// prefixes are spelled with bounds on its start and end: `eq` is two conditions (starts at or
/// after the low end, ends at or before the high end), `ge` one condition with two bounds. The
/// added date is an instant: it covers `[t, t + ε)`, so its end compares as its start does.
public struct DateCondition: Sendable, Hashable {
    /// One comparison of a span with an instant.
    public enum Bound: Sendable, Hashable {
        /// The span starts before the instant.
        case startsBefore(Date)
        /// The span starts at or after the instant.
        case startsAtOrAfter(Date)
        /// The span ends at or before the instant (it lies wholly before it).
        case endsAtOrBefore(Date)
        /// The span ends after the instant (some of it lies at or after it).
        case endsAfter(Date)
    }

    /// The bounds, any one of which makes the condition hold; none matches nothing.
    public var anyOf: [Bound]

    /// Makes a condition that holds when any of the bounds holds.
    public init(anyOf: [Bound]) { self.anyOf = anyOf }

    /// A condition of one bound.
    public init(_ bound: Bound) { self.anyOf = [bound] }
}

/// A stored resource with its key: the store's identity of its source, type and id, which
/// finds it again (``ResourceQuery/keys``).
public struct KeyedResource: Sendable, Hashable {
    /// The resource as stored.
    public let stored: StoredResource
    /// Its key.
    public let key: ResourceKey

    /// Pairs a stored resource with its key (the store makes these).
    package init(stored: StoredResource, key: ResourceKey) {
        self.stored = stored
        self.key = key
    }
}

/// One page of a ``ResourceQuery``: the resources, how many match in all (when counted), and
/// the snapshot anchor the page was read at — pass it back as ``ResourceQuery/addedThrough``
/// so that later pages see the same resources while new ones arrive.
public struct ResourcePage: Sendable, Hashable {
    /// The page's resources, in the query's order.
    public let resources: [KeyedResource]
    /// How many resources match in all, ignoring limit and offset; `nil` when not counted.
    public let total: Int?
    /// The anchor the page was read at: the query's ``ResourceQuery/addedThrough``, or the
    /// store's latest anchor when the query had none.
    public let snapshot: QueryAnchor
    /// The store's anchor when the page was read: the same query through the same windows at
    /// the same anchor reads the same page, so whatever was made from it may be reused.
    public let readAt: QueryAnchor
    /// The consent windows the page was read through (set by ``AppView``; `nil` from the store
    /// itself): what decides whether a resource `contained` in one of the page's resources may
    /// be shown too.
    public internal(set) var visibleWindows: [TypeWindow<ConsentCategory>]?

    /// Makes a page (the store makes these).
    package init(resources: [KeyedResource], total: Int?, snapshot: QueryAnchor, readAt: QueryAnchor) {
        self.resources = resources
        self.total = total
        self.snapshot = snapshot
        self.readAt = readAt
    }
}
