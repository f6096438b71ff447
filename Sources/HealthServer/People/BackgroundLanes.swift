import ProviderSync

/// The turns every person's background work takes in a server for many people: provider syncs
/// in one lane and sharing jobs (webhook deliveries, sweeps of ended share links) in another,
/// each with its cap and each fair between people (``FairTurns``). Two lanes, because a sync
/// can run for minutes and a delivery should not wait behind it.
struct BackgroundLanes: Sendable {
    /// Provider syncs.
    let syncs: FairTurns
    /// Webhook deliveries and link sweeps.
    let sharing: FairTurns

    init(limits: ServerLimits) {
        syncs = FairTurns(limit: limits.maxConcurrentSyncs)
        sharing = FairTurns(limit: limits.maxConcurrentSharingJobs)
    }
}
