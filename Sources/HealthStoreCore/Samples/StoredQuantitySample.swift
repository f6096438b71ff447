import Foundation

/// A quantity sample as the store holds it.
public struct StoredQuantitySample: Sendable, Hashable {
    /// The sample exactly as saved; what the store adds (date, anchor, signature status) sits beside it.
    public let sample: QuantitySample
    /// When it was saved.
    public let addedDate: Date
    /// The anchor of its saving.
    public let anchor: QueryAnchor
    /// What the store found when it checked the signature on saving.
    public let signatureStatus: SampleSignatureStatus

    /// Makes a stored sample (engines make these when saving and when reading their rows).
    public init(sample: QuantitySample, addedDate: Date, anchor: QueryAnchor, signatureStatus: SampleSignatureStatus) {
        self.sample = sample
        self.addedDate = addedDate
        self.anchor = anchor
        self.signatureStatus = signatureStatus
    }
}
