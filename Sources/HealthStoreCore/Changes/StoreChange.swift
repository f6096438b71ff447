import ClinicalRecords

/// A notice that the store changed: which clinical types and which quantity types have
/// changes, and the anchor after the change.
public struct StoreChange: Sendable, Hashable {
    /// The clinical types that have added, changed or deleted records.
    public let types: Set<ClinicalType>
    /// The quantity types that have saved or deleted samples.
    public let sampleTypes: Set<QuantityType>
    /// The store's anchor after the change.
    public let anchor: QueryAnchor

    /// Makes a notice.
    public init(types: Set<ClinicalType>, sampleTypes: Set<QuantityType> = [], anchor: QueryAnchor) {
        self.types = types
        self.sampleTypes = sampleTypes
        self.anchor = anchor
    }

    /// Whether the notice names no type at all.
    public var isEmpty: Bool { types.isEmpty && sampleTypes.isEmpty }
}
