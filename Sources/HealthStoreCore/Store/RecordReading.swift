import ClinicalRecords
import FHIR
import Foundation

/// Reading records and resources as the person sees them (no consent applied unless windows
/// are given): what the person's pages, the FHIR API (through windows) and exports need.
public protocol RecordReading: Sendable {
    /// Every source that has records or context.
    func sources() async throws -> [RecordSource]

    /// Records matching a query.
    func records(_ query: RecordQuery) async throws -> [ClinicalRecord]

    /// How many records match a query (ignoring its limit).
    func count(_ query: RecordQuery) async throws -> Int

    /// How many records there are of each clinical type (types without records left out), in
    /// one statement.
    func recordCounts() async throws -> [ClinicalType: Int]

    /// The newest `limit` records of every clinical type by clinical date (undated last), in
    /// one statement: a timeline's page, whatever the store holds.
    func latestRecords(perType limit: Int) async throws -> [ClinicalRecord]

    /// The records with these identities that are stored, in one statement (at most 500
    /// identities; more is ``HealthStoreError/invalidArgument(_:)``).
    func records(identifiedBy identities: [RecordIdentity]) async throws -> [ClinicalRecord]

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
}


extension RecordReading {
    /// A resource by identity, record or context (the person's view: no consent filter).
    public func resource(_ identity: RecordIdentity) async throws -> StoredResource? {
        try await resource(identity, visible: nil)
    }

    /// Context resources of a FHIR type (the person's view: no consent filter).
    public func contextResources(ofType type: FHIRResourceType, source: String?) async throws -> [StoredResource] {
        try await contextResources(ofType: type, source: source, visible: nil)
    }
}
