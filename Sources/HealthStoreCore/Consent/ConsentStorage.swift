import ClinicalRecords
import Foundation

/// The storage primitives consent needs from an engine. They hold no policy: grant
/// evaluation, watermarks, audit and "denial looks like no data" live in ``ConsentManager``
/// and ``AppView``, the same for every engine.
public protocol ConsentStorage: Sendable {
    /// Stores a new app.
    func saveApp(_ app: StoredApp) async throws
    /// An app by id; `nil` when no app has it.
    func app(id: String) async throws -> StoredApp?
    /// Every app, oldest registration first.
    func apps() async throws -> [StoredApp]
    /// Stores grants, replacing any for the same app and type.
    func saveGrants(_ grants: [ReadGrant]) async throws
    /// An app's grants, in no promised order (``ConsentManager/grants(appID:)`` sorts them).
    func grants(appID: String) async throws -> [ReadGrant]
    /// Ends an app's access in one transaction: removes its grants, its medication pick and its
    /// uncollected card shares, and bumps its ``StoredApp/accessRevision``. Returns how many grants there were.
    func removeAccess(appID: String) async throws -> Int

    /// Takes the next anchor without recording a change (grants are dated with it).
    func reserveAnchor() async throws -> QueryAnchor
    /// The latest anchor of any record, deleted record, sample or deleted sample inside the
    /// windows; ``QueryAnchor/initial`` when there is none.
    func latestAnchor(records: [TypeWindow<ConsentCategory>], samples: [TypeWindow<QuantityType>]) async throws -> QueryAnchor
    /// Whether any record or sample of a type was first added after an anchor (new data
    /// waiting for approval).
    func hasData(ofType type: HealthDataType, addedAfter anchor: QueryAnchor) async throws -> Bool

    /// The store's secret for sealing the anchors apps see (made once, kept with the store), so
    /// an app's anchors survive restarts yet say nothing about writes it cannot see.
    func anchorSecret() async throws -> Data

    /// Appends to the audit log. Entries may be written in batches shortly after; reading the
    /// log (and ``flushAudit()``) writes what waits first.
    func appendAudit(_ entry: AuditEntry) async throws
    /// Writes every audit entry still waiting (before a process exits, or to read the log elsewhere).
    func flushAudit() async throws
    /// The audit log, oldest first; one app's entries, or every app's for `nil`.
    func auditEntries(appID: String?) async throws -> [AuditEntry]
    /// The newest `limit` audit entries (of one app, or of all for `nil`), newest first, skipping
    /// the newest `offset`: a page read in SQL, so a long log is never loaded whole.
    func auditEntries(appID: String?, newestFirst limit: Int, offset: Int) async throws -> [AuditEntry]

    /// Stores the cards picked for a one-time share.
    func saveCardShare(_ share: CardShare) async throws
    /// Removes and returns a share by its token digest: a token works once.
    func takeCardShare(tokenDigest: Data) async throws -> CardShare?

    /// The medications (``MedicationEntry/id``s) the person picked for an app to read; `nil`
    /// when no pick was ever made (the medication grant then reads every medication record).
    func medicationChoice(appID: String) async throws -> Set<String>?
    /// Stores the medications picked for an app (sealed), replacing any earlier pick; `nil`
    /// removes the pick.
    func saveMedicationChoice(appID: String, entries: Set<String>?) async throws

    /// The oldest of the apps' latest allowed-grant decisions (when the access review that is
    /// most overdue was last confirmed); `nil` when no app may read anything.
    func oldestConfirmation() async throws -> Date?

    /// One of the person's settings by name (``AccessReviewSettings`` keeps its own);
    /// `nil` when it was never set.
    func setting(_ name: String) async throws -> String?
    /// Stores a setting, or with `nil` removes it.
    func saveSetting(_ name: String, value: String?) async throws
}
