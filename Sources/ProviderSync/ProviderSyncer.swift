import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthStoreCore

/// Downloads a provider's records into the store and keeps them up to date.
///
/// The first sync (and any sync after ``SyncOptions/fullSyncInterval``) downloads everything
/// and deletes what the provider no longer holds; the others ask only for what changed since
/// the last one (`_lastUpdated`, or `_since` for `$everything`), reaching back an overlap.
/// Every page enters through HealthImport (``RecordImporter/importPage(_:source:)``), like a
/// file's resources, so consent, "ask"
/// and anchors hold for downloaded records; a checkpoint saved after each page lets a killed
/// sync continue where it was.
public struct ProviderSyncer: Sendable {
    /// The store records go to.
    public let store: any HealthStore
    /// The classifier and namer, the same one file imports use.
    public let builder: RecordBuilder
    /// The clock sync dates come from: the store's, unless a test gives another.
    public let clock: @Sendable () -> Date

    /// Makes a syncer over a store.
    public init(store: any HealthStore, builder: RecordBuilder = RecordBuilder(), clock: (@Sendable () -> Date)? = nil) {
        self.store = store
        self.builder = builder
        let storeClock = store.clock
        self.clock = clock ?? { storeClock.now }
    }

    /// Syncs one provider; failures are in the report, never thrown.
    public func sync(providerID: String, options: SyncOptions = SyncOptions(), progress: (@Sendable (SyncProgress) -> Void)? = nil) async -> SyncReport {
        let start = Date()
        var report = SyncReport(id: providerID, source: "provider:" + providerID, mode: options.full ? "full" : "incremental", status: "unknown")
        do {
            try await run(providerID, options, progress, &report)
        } catch let error as ProviderSyncError {
            report.error = SyncReport.Failure(code: error.code, message: error.description)
        } catch {
            report.error = SyncReport.Failure(code: "provider.store", message: "\(error)")
        }
        if let provider = try? await store.provider(id: providerID) { report.status = provider.status.rawValue }
        report.seconds = Date().timeIntervalSince(start)
        return report
    }

    private func run(_ providerID: String, _ options: SyncOptions, _ progress: (@Sendable (SyncProgress) -> Void)?, _ report: inout SyncReport) async throws {
        guard let provider = try await store.provider(id: providerID) else { throw ProviderSyncError.unknownProvider(providerID) }
        guard let base = URL.fhirBase(provider.fhirBase) else { throw ProviderSyncError.invalidBase(provider.fhirBase, reason: "not a URL") }
        let http = try ProviderHTTP(base: base, allowLoopback: provider.allowLoopback, retry: options.retry)
        let session = ProviderSession(provider: provider, store: store, http: http, clock: clock)
        if provider.access == .signIn && provider.tokens == nil {
            throw ProviderSyncError.needsSignIn(provider: providerID, reason: "not signed in yet")
        }
        guard let patient = provider.patientID else {
            throw ProviderSyncError.needsSignIn(provider: providerID, reason: "the provider has not said which patient you are")
        }
        let (capabilities, serverDate) = try await ProviderDiscovery(http: http, base: base).capabilities()
        if provider.name == provider.id, let name = capabilities.organizationName ?? base.host { try await session.adoptName(name) }
        let name = await session.provider.name

        var checkpoint: SyncCheckpoint?
        if !options.fetchOnly && !options.full, let saved = try await store.syncCheckpoint(providerID: providerID) {
            checkpoint = try? SyncCheckpoint(encoded: saved)
            report.resumed = checkpoint != nil
        }
        let now = clock()
        if checkpoint == nil {
            let stale = provider.lastFullSync.map { now.timeIntervalSince($0) > options.fullSyncInterval } ?? true
            let full = options.full || stale || provider.syncedSince == nil
            checkpoint = SyncCheckpoint(
                full: full, since: full ? nil : provider.syncedSince?.addingTimeInterval(-options.overlap), started: serverDate ?? now,
                steps: DownloadStep.plan(capabilities, useEverything: options.useEverything).map { SyncCheckpoint.StepState(step: $0) }, seen: [])
        }
        report.mode = checkpoint!.full ? "full" : "incremental"
        let state = SyncState(checkpoint: checkpoint!, store: store, providerID: providerID, persist: !options.fetchOnly, progress: progress)
        let source = RecordSource(identifier: provider.sourceIdentifier, name: name)
        let download = StepDownload(
            base: base, patient: patient, http: http, session: session, state: state, importer: options.fetchOnly ? nil : RecordImporter(store: store, builder: builder), source: source, builder: builder,
            options: options)

        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, options.concurrency) {
                group.addTask {
                    while let index = await state.claim() {
                        do { try await download.run(index) } catch let error as ProviderSyncError { await state.fail(error) } catch {
                            await state.fail(.store("\(error)"))
                        }
                        await state.finish(index)
                    }
                }
            }
        }

        let finalCheckpoint = await state.checkpoint
        report.types = finalCheckpoint.steps.map { SyncReport.StepCount(type: $0.step.key, pages: $0.pages, resources: $0.resources) }
        report.fetched = finalCheckpoint.steps.reduce(0) { $0 + $1.resources }
        report.warnings = await state.warnings
        report.leftOut = await state.leftOut
        let outcome = await state.outcome
        report.inserted = outcome.inserted + outcome.contextInserted
        report.updated = outcome.updated + outcome.contextUpdated
        report.unchanged = outcome.unchanged + outcome.notRecords - outcome.contextInserted - outcome.contextUpdated
        if let failure = await state.failure { throw failure }
        guard !options.fetchOnly else { return }

        if finalCheckpoint.full {
            // $everything returns every type; a search per type only speaks for the types searched.
            let everything = finalCheckpoint.steps.contains { $0.step.kind == .everything }
            let types: Set<FHIRResourceType>? = everything ? nil : Set(finalCheckpoint.steps.filter { !$0.skipped }.map { FHIRResourceType(rawValue: $0.step.resourceType) })
            let held = try await store.resourceCount(source: source.identifier, resourceTypes: types)
            if Self.mayHaveGone(held: held, seen: finalCheckpoint.seen, types: types) {
                let keys = Set(finalCheckpoint.seen.compactMap { seen -> ResourceKey? in
                    guard let slash = seen.firstIndex(of: "/") else { return nil }
                    return store.resourceKey(source: source.identifier, resourceType: FHIRResourceType(rawValue: String(seen[..<slash])), identifier: String(seen[seen.index(after: slash)...]))
                })
                report.deleted = try await RecordImporter(store: store, builder: builder).removeResources(
                    source: source.identifier, keeping: keys, resourceTypes: types)
            }
        }
        try await session.finishedSync(at: clock(), full: finalCheckpoint.full, since: finalCheckpoint.started)
    }

    /// Whether a full download may have left out something the source holds: every resource
    /// seen was just stored, so when the source holds no more of the types judged (every type
    /// when `nil`) than were seen of them, nothing is gone, and no keys need be made.
    static func mayHaveGone(held: Int, seen: Set<String>, types: Set<FHIRResourceType>?) -> Bool {
        guard let types else { return held != seen.count }
        return held != seen.count(where: { types.contains(FHIRResourceType(rawValue: String($0.prefix { $0 != "/" }))) })
    }
}
