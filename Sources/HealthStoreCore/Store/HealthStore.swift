import ClinicalRecords
import FHIR
import Foundation
import SmartHealthCards

/// A place clinical records and quantity samples live: one protocol, several engines (SQLite
/// embedded, PostgreSQL).
///
/// Engines store and query; what a resource *is* (type, display name, clinical date) is decided
/// before it reaches them, so every engine gives the same answers. Records and samples share one
/// anchor counter, so an anchor orders every change in the store.
///
/// Values that identify a person or a condition pass through the engine's ``RecordSealer``:
/// for samples that is the value, unit, device and metadata (signature included); only the
/// quantity type, dates and identity keys are stored in the clear.
///
/// Apps read through ``AppView``, which applies the person's grants on every path; the
/// engine provides only the storage primitives of ``ConsentStorage``.
public protocol HealthStore: ConsentStorage, CredentialStorage, ProviderStorage, Sendable {
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
    func records(_ query: RecordQuery) async throws -> [ClinicalRecord]

    /// How many records match a query (ignoring its limit).
    func count(_ query: RecordQuery) async throws -> Int

    /// A resource by identity, record or context; with windows, only when its consent category
    /// is in one of them (decided in the same statement, so a hidden resource costs what a
    /// missing one does).
    func resource(_ identity: RecordIdentity, visible windows: [TypeWindow<ConsentCategory>]?) async throws -> StoredResource?

    /// Context resources (not clinical records) of a FHIR type, e.g. the Patient; with windows,
    /// only those whose consent category is in one of them.
    func contextResources(ofType type: FHIRResourceType, source: String?, visible windows: [TypeWindow<ConsentCategory>]?) async throws -> [StoredResource]

    /// Resources of any kind (records and context) matching a query, one page of them, read in
    /// one snapshot with the total when asked for; with windows, only those whose consent
    /// category is in one of them (decided in the same statements).
    func resources(_ query: ResourceQuery, visible windows: [TypeWindow<ConsentCategory>]?, countingTotal: Bool) async throws -> ResourcePage

    /// The earlier versions of the resource with `key`, newest first: empty for a resource never
    /// replaced, or not stored. No consent applies here: a caller reads the resource itself
    /// (through its windows) first.
    func resourceVersions(of key: ResourceKey) async throws -> [ResourceVersion]

    /// The key of a resource by source, type and id, whether or not it is stored (computed,
    /// not looked up): what ``ResourceQuery/keys`` matches.
    func resourceKey(source: String, resourceType: FHIRResourceType, identifier: String) -> ResourceKey

    /// What changed since an anchor.
    func changes(_ query: AnchoredQuery) async throws -> AnchoredQueryResult

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

    /// The anchor of the latest change.
    func currentAnchor() async throws -> QueryAnchor

    /// The clinical types and quantity types with changes after an anchor, and the current
    /// anchor, read together.
    func changeSummary(since anchor: QueryAnchor) async throws -> StoreChange

    /// Notices of changes made through this store object in this process.
    func localChanges() -> AsyncStream<StoreChange>

    // MARK: Quantity samples

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

    // MARK: Verifiable records

    /// Stores verified (or, on request, unverified) cards in one transaction; a card already
    /// stored is matched by its JWS.
    func saveVerifiableRecords(_ records: [(VerifiableClinicalRecord, CardStatus)]) async throws -> CardSaveOutcome

    /// Cards that have all the requested types and a relevant date in the interval, oldest relevant date first.
    func verifiableRecords(_ query: VerifiableRecordQuery) async throws -> [StoredVerifiableRecord]

    /// Deletes one card by its identifier; returns whether it existed.
    func deleteVerifiableRecord(identifier: String) async throws -> Bool
}

extension HealthStore {
    /// A resource by identity, record or context (the person's view: no consent filter).
    public func resource(_ identity: RecordIdentity) async throws -> StoredResource? {
        try await resource(identity, visible: nil)
    }

    /// Context resources of a FHIR type (the person's view: no consent filter).
    public func contextResources(ofType type: FHIRResourceType, source: String?) async throws -> [StoredResource] {
        try await contextResources(ofType: type, source: source, visible: nil)
    }
}
