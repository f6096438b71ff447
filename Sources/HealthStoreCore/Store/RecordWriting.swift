import ClinicalRecords
import FHIR
import Foundation

/// Storing and removing resources: what an import (the one way data enters) needs.
public protocol RecordWriting: Sendable {
    /// The clock that dates additions and deletions.
    var clock: HealthClock { get }

    /// Stores resources from one source in a single transaction: all land or none do.
    ///
    /// A resource whose identity (source, type, id) is stored already is updated when its bytes
    /// differ and left alone otherwise. Every change takes the next anchor.
    func importResources(source: RecordSource, from producer: some ResourceProducer) async throws -> ImportOutcome

    /// Deletes one resource (type and id given) or everything from a source; returns how many
    /// records and context resources were removed. Deleted records leave tombstones.
    func delete(source: String, resourceType: FHIRResourceType?, identifier: String?) async throws -> Int

    /// Deletes a source's resources of the given types (every type when `nil`) whose keys are
    /// not in `keeping`, in one transaction: what a full download from a provider no longer
    /// holds. Deleted records leave tombstones; returns how many resources were removed.
    func deleteResources(source: String, keeping: Set<ResourceKey>, resourceTypes: Set<FHIRResourceType>?) async throws -> Int

    /// How many resources a source holds, of the given types (every type when `nil`): a sync
    /// that just stored as many as the source holds knows nothing is gone without making keys.
    func resourceCount(source: String, resourceTypes: Set<FHIRResourceType>?) async throws -> Int
}
