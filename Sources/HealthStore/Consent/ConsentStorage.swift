import ClinicalRecords
import Foundation

/// The storage primitives consent needs from an engine. They hold no policy: grant
/// evaluation, watermarks, audit and "denial looks like no data" live in ``ConsentManager``
/// and ``AppView``, the same for every engine.
public protocol ConsentStorage: Sendable {
    /// Stores a new app.
    func saveApp(_ app: StoredApp) async throws
    /// An app by id.
    func app(id: String) async throws -> StoredApp?
    /// Every app, oldest registration first.
    func apps() async throws -> [StoredApp]
    /// Stores grants, replacing any for the same app and type.
    func saveGrants(_ grants: [ReadGrant]) async throws
    /// An app's grants.
    func grants(appID: String) async throws -> [ReadGrant]
    /// Removes an app's grants; returns how many there were.
    func removeGrants(appID: String) async throws -> Int

    /// Takes the next anchor without recording a change (grants are dated with it).
    func reserveAnchor() async throws -> QueryAnchor
    /// The latest anchor of any record, deleted record, sample or deleted sample inside the
    /// windows; ``QueryAnchor/initial`` when there is none.
    func latestAnchor(records: [TypeWindow<ClinicalType>], samples: [TypeWindow<QuantityType>]) async throws -> QueryAnchor
    /// Whether any record or sample of a type was first added after an anchor (new data
    /// waiting for approval).
    func hasData(ofType type: HealthDataType, addedAfter anchor: QueryAnchor) async throws -> Bool

    /// Appends to the audit log.
    func appendAudit(_ entry: AuditEntry) async throws
    /// The audit log, oldest first; one app's entries, or every app's for `nil`.
    func auditEntries(appID: String?) async throws -> [AuditEntry]

    /// Stores the cards picked for a one-time share.
    func saveCardShare(_ share: CardShare) async throws
    /// Removes and returns a share by its token digest: a token works once.
    func takeCardShare(tokenDigest: Data) async throws -> CardShare?
}
