import Foundation
import HealthStoreCore

/// What one provider's sync did, as `sync --json` prints it.
public struct SyncReport: Sendable, Codable, Hashable {
    /// Resources and pages of one search.
    public struct StepCount: Sendable, Codable, Hashable {
        /// The search (`Patient`, `$everything`, `Observation?category=laboratory`).
        public var type: String
        /// Pages fetched.
        public var pages: Int
        /// Resources they held.
        public var resources: Int
    }

    /// A failure, with a stable code.
    public struct Failure: Sendable, Codable, Hashable {
        /// The ``ProviderSyncError/code``.
        public var code: String
        /// What went wrong, in words.
        public var message: String
    }

    /// The provider's id.
    public var id: String
    /// The source its records are stored under.
    public var source: String
    /// `full` or `incremental`.
    public var mode: String
    /// The connection's status afterwards.
    public var status: String
    /// Whether this sync continued an interrupted one.
    public var resumed = false
    /// Every search, in plan order.
    public var types: [StepCount] = []
    /// Resources fetched.
    public var fetched = 0
    /// New resources (records and context such as the Patient), counted once however often a
    /// download returns them.
    public var inserted = 0
    /// Changed ones.
    public var updated = 0
    /// Ones stored already with the same bytes.
    public var unchanged = 0
    /// Resources the provider no longer holds (full downloads only), now deleted.
    public var deleted = 0
    /// Resources left out because they are not shown to be the connected patient's: another
    /// Patient, or records naming one, or naming someone no reference resolves to (an
    /// identifier alone, a Group), or no one. Counted from where this run started.
    public var leftOut = 0
    /// Wall time, in seconds.
    public var seconds = 0.0
    /// Searches skipped and why (a type the provider refuses to this client).
    public var warnings: [String] = []
    /// Why the sync failed; `nil` on success. Everything stored before it stays, and the next
    /// sync continues from the checkpoint.
    public var error: Failure?
}

/// How far a sync is, for a progress bar.
public struct SyncProgress: Sendable, Hashable {
    /// The provider.
    public var provider: String
    /// Searches finished, and planned so far.
    public var stepsDone: Int
    public var stepsTotal: Int
    /// Pages and resources fetched so far.
    public var pages: Int
    public var resources: Int
    /// The search that just stored a page.
    public var current: String
}
