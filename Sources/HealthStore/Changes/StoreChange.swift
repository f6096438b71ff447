import ClinicalRecords

/// A notice that records changed: which clinical types, and the anchor after the change.
public struct StoreChange: Sendable, Hashable {
    /// The clinical types that have added, changed or deleted records.
    public let types: Set<ClinicalType>
    /// The store's anchor after the change.
    public let anchor: QueryAnchor

    /// Makes a notice.
    public init(types: Set<ClinicalType>, anchor: QueryAnchor) {
        self.types = types
        self.anchor = anchor
    }
}
