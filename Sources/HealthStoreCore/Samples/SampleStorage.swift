import ClinicalRecords
import Foundation

/// Quantity samples: saved once, read by query or anchor, deleted with tombstones.
public protocol SampleStorage: Sendable {
    /// Saves samples in a single transaction: all land or none do.
    ///
    /// Each new sample takes the next anchor. A sample whose ``QuantitySample/uuid`` is stored
    /// already with the same values is left alone; with other values the save fails with
    /// ``HealthStoreError/sampleConflict(_:)`` (samples are immutable). A sample's signature is
    /// checked for shape only (``SampleSignatureStatus``); a malformed one is stored and marked,
    /// never a reason to drop the sample.
    func saveSamples(_ samples: [QuantitySample]) async throws -> SampleSaveOutcome

    /// Samples matching a query.
    func samples(_ query: QuantitySampleQuery) async throws -> [StoredQuantitySample]

    /// Samples saved or deleted since an anchor.
    func sampleChanges(_ query: AnchoredSampleQuery) async throws -> AnchoredSampleQueryResult

    /// Deletes the samples of a type (`nil` for every type) that match a predicate; returns how
    /// many were removed. Deleted samples leave tombstones for anchored queries.
    func deleteSamples(type: QuantityType?, predicate: SamplePredicate?) async throws -> Int
}
