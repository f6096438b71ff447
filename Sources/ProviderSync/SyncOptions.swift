import Foundation

/// How a sync runs.
public struct SyncOptions: Sendable {
    /// Download everything (and find deletions) even when an incremental sync would do.
    public var full = false
    /// Fetch every page exactly as a sync would and store nothing (what the benchmark compares
    /// a sync against); the provider's tokens are still kept when refreshed.
    public var fetchOnly = false
    /// The most pages one search may have.
    public var pageCap = 1000
    /// How many searches run at once.
    public var concurrency = 4
    /// The `_count` asked for (a hint: servers choose).
    public var pageSize = 200
    /// How far before the last sync's start an incremental sync reaches back, for clocks and
    /// commits that were slightly behind.
    public var overlap: TimeInterval = 300
    /// How old the last full download may be before the next sync is full again (deletions are
    /// only seen by full downloads).
    public var fullSyncInterval: TimeInterval = 7 * 24 * 3600
    /// Use `Patient/$everything` where the provider offers it.
    public var useEverything = true
    /// How requests are retried.
    public var retry = RetryPolicy()

    /// Makes the defaults: incremental where possible, 4 searches at once, 1000 pages at most.
    public init() {}
}
