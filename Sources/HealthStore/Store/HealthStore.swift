import ClinicalRecords
import FHIR
import Foundation

/// A place clinical records live: one protocol, several engines (SQLite embedded, PostgreSQL).
///
/// Engines store and query; what a resource *is* (type, display name, clinical date) is decided
/// before it reaches them, so every engine gives the same answers.
public protocol HealthStore: Sendable {
    /// The clock that dates additions and deletions.
    var clock: HealthClock { get }

    /// Every source that has records or context.
    func sources() async throws -> [RecordSource]

    /// Stores resources from one source in a single transaction: all land or none do.
    ///
    /// A resource whose identity (source, type, id) is stored already is updated when its bytes
    /// differ and left alone otherwise. Every change takes the next anchor.
    func importResources(source: RecordSource, from producer: some ResourceProducer) async throws -> ImportOutcome

    /// Records matching a query.
    func records(_ query: SampleQuery) async throws -> [ClinicalRecord]

    /// How many records match a query (ignoring its limit).
    func count(_ query: SampleQuery) async throws -> Int

    /// A resource by identity, record or context.
    func resource(_ identity: RecordIdentity) async throws -> StoredResource?

    /// Context resources (not clinical records) of a FHIR type, e.g. the Patient.
    func contextResources(ofType type: FHIRResourceType, source: String?) async throws -> [StoredResource]

    /// What changed since an anchor.
    func changes(_ query: AnchoredQuery) async throws -> AnchoredQueryResult

    /// Deletes one resource (type and id given) or everything from a source; returns how many
    /// records and context resources were removed. Deleted records leave tombstones.
    func delete(source: String, resourceType: FHIRResourceType?, identifier: String?) async throws -> Int

    /// The anchor of the latest change.
    func currentAnchor() async throws -> QueryAnchor

    /// The clinical types with changes after an anchor, and the current anchor, read together.
    func changeSummary(since anchor: QueryAnchor) async throws -> StoreChange

    /// Notices of changes made through this store object in this process.
    func localChanges() -> AsyncStream<StoreChange>
}
