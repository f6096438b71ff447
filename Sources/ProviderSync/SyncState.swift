import Foundation
import HealthStoreCore

/// The shared state of one sync's searches: the checkpoint (saved after every stored page),
/// which search runs next, the totals and the first failure.
actor SyncState {
    private(set) var checkpoint: SyncCheckpoint
    private let store: any HealthStore
    private let providerID: String
    private let persist: Bool
    private var claimed = Set<Int>()
    private(set) var outcome = ImportOutcome()
    private(set) var warnings: [String] = []
    /// Resources left out for not being the connected patient's (``PatientCompartment``).
    private(set) var leftOut = 0
    private(set) var failure: ProviderSyncError?
    private let progress: (@Sendable (SyncProgress) -> Void)?

    init(checkpoint: SyncCheckpoint, store: any HealthStore, providerID: String, persist: Bool, progress: (@Sendable (SyncProgress) -> Void)?) {
        self.checkpoint = checkpoint
        self.store = store
        self.providerID = providerID
        self.persist = persist
        self.progress = progress
    }

    /// The next search nobody runs, or `nil` when none is left (or the sync failed).
    func claim() -> Int? {
        guard failure == nil else { return nil }
        guard let index = checkpoint.steps.indices.first(where: { !checkpoint.steps[$0].done && !claimed.contains($0) }) else { return nil }
        claimed.insert(index)
        return index
    }

    func step(_ index: Int) -> SyncCheckpoint.StepState { checkpoint.steps[index] }

    var isFailed: Bool { failure != nil }

    /// Records a stored page and saves the checkpoint, so a rerun starts after it.
    func stored(_ index: Int, next: URL?, fetched: Int, resources: [String], leftOut: Int, outcome: ImportOutcome) async throws {
        self.leftOut += leftOut
        checkpoint.steps[index].pages += 1
        checkpoint.steps[index].resources += fetched
        checkpoint.steps[index].next = next
        checkpoint.steps[index].done = next == nil
        if checkpoint.full { checkpoint.see(resources) }
        self.outcome += outcome
        // After the last page the sync ends at once and clears the checkpoint; killed in
        // between, a rerun fetches that last page again and finds it stored already. A search
        // that ended on a page with nothing in it is not worth a save either (a search per type
        // meets a dozen): a rerun asks for the empty page again, and nothing was stored or seen.
        if !checkpoint.steps.allSatisfy(\.done) && (fetched > 0 || next != nil) { try await save() }
        report(index)
    }

    /// The server refused `_lastUpdated` for a search: it asks for everything from the start.
    func ignoreSince(_ index: Int) async throws {
        checkpoint.steps[index].ignoresSince = true
        checkpoint.steps[index].next = nil
        try await save()
    }

    /// A search the server refuses to this client is skipped, with a warning.
    func skip(_ index: Int, reason: String) async throws {
        checkpoint.steps[index].done = true
        checkpoint.steps[index].skipped = true
        warnings.append(checkpoint.steps[index].step.key + ": " + reason)
        try await save()
        report(index)
    }

    /// Observation without a category was refused: one search per category replaces it.
    func splitByCategory(_ index: Int) async throws {
        checkpoint.steps[index].done = true
        for category in DownloadStep.observationCategories {
            var step = checkpoint.steps[index].step
            step.category = category
            checkpoint.steps.append(SyncCheckpoint.StepState(step: step, ignoresSince: checkpoint.steps[index].ignoresSince))
        }
        try await save()
    }

    func fail(_ error: ProviderSyncError) {
        if failure == nil { failure = error }
    }

    func finish(_ index: Int) { claimed.remove(index) }

    private func save() async throws {
        guard persist else { return }
        let data = try checkpoint.encoded()
        try await store.saveSyncCheckpoint(data, providerID: providerID)
    }

    private func report(_ index: Int) {
        guard let progress else { return }
        let steps = checkpoint.steps
        progress(
            SyncProgress(
                provider: providerID, stepsDone: steps.filter(\.done).count, stepsTotal: steps.count, pages: steps.reduce(0) { $0 + $1.pages },
                resources: steps.reduce(0) { $0 + $1.resources }, current: steps[index].step.key))
    }
}
