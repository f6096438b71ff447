import ClinicalRecords
import FHIR
import Foundation
import HealthStoreCore

extension RecordImporter {
    /// Stores resources that came from a FHIR server (one page of a provider's download) in one
    /// transaction under the provider's source, as a file's resources are stored: how
    /// ProviderSync brings data in.
    public func importPage(_ producer: some ResourceProducer, source: RecordSource) async throws -> ImportOutcome {
        try await store.importResources(source: source, from: producer)
    }

    /// After a full download: removes the source's resources of these types (every type when
    /// `nil`) that the download did not hold, leaving tombstones; returns how many went.
    public func removeResources(source: String, keeping: Set<ResourceKey>, resourceTypes: Set<FHIRResourceType>?) async throws -> Int {
        try await store.deleteResources(source: source, keeping: keeping, resourceTypes: resourceTypes)
    }
}
