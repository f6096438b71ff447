import ClinicalRecords
import FHIR
import Foundation
import HealthImport
import HealthStoreCore
import OutboundHTTP

/// Runs one search of a sync: fetches its pages in order (the next one while the last is
/// stored), stores each through the import, and saves the checkpoint after each.
struct StepDownload: Sendable {
    let base: URL
    let patient: String
    let http: ProviderHTTP
    let session: ProviderSession
    let state: SyncState
    /// What stores each page (the one way data enters); `nil` for a fetch-only run.
    let importer: RecordImporter?
    let source: RecordSource
    let builder: RecordBuilder
    let options: SyncOptions

    /// What fetching one page came to.
    private enum Fetched: Sendable {
        case page(ProviderPage)
        /// The search was refused before any page; the state says what to do instead.
        case replanned
    }

    func run(_ index: Int) async throws {
        var entry = await state.step(index)
        let checkpoint = await state.checkpoint
        let since = entry.ignoresSince || entry.step.kind == .patient ? nil : checkpoint.since
        var url = entry.next ?? entry.step.url(base: base, patient: patient, count: options.pageSize, since: since)
        var first = entry.next == nil && entry.pages == 0
        var visited: Set<String> = [url.absoluteString]
        var pages = entry.pages
        let firstStep = entry.step
        var pending: Task<Fetched, any Error>? = Task { [self, url, first] in try await fetch(url, index: index, step: firstStep, first: first, since: since) }
        while let task = pending {
            let fetched = try await task.value
            guard case .page(let page) = fetched else {
                // Refused and replanned (no category, no _lastUpdated): start this step again if it is still to do.
                entry = await state.step(index)
                guard !entry.done else { return }
                url = entry.step.url(base: base, patient: patient, count: options.pageSize, since: nil)
                visited = [url.absoluteString]
                first = true
                let step = entry.step
                pending = Task { [self, url] in try await fetch(url, index: index, step: step, first: true, since: nil) }
                continue
            }
            first = false
            pages += 1
            pending = nil
            if let next = page.next {
                guard http.origin.holds(next) else { throw ProviderSyncError.foreignLink(next.absoluteString) }
                guard visited.insert(next.absoluteString).inserted else { throw ProviderSyncError.pagingLoop(url: next.absoluteString) }
                guard pages < options.pageCap else { throw ProviderSyncError.pageCapReached(search: entry.step.key, cap: options.pageCap) }
                if await state.isFailed { return }
                let step = entry.step
                pending = Task { [self, next] in try await fetch(next, index: index, step: step, first: false, since: since) }
            }
            var outcome = ImportOutcome()
            var ids: [String] = []
            var leftOut = 0
            if let importer, page.count > 0 {
                let producer = PageProducer(page: page, builder: builder, patient: patient)
                do { outcome = try await importer.importPage(producer, source: source) } catch let error as FHIRError {
                    // An entry found wrong as it was made: the page is malformed, nothing of it stored.
                    pending?.cancel()
                    throw ProviderSyncError.malformedPage(url: page.url.absoluteString, reason: "\(error)")
                } catch {
                    pending?.cancel()
                    throw ProviderSyncError.store("\(error)")
                }
                ids = producer.stored
                leftOut = producer.dropped
                producer.releaseInBackground()
            }
            do { try await state.stored(index, next: page.next, fetched: page.count, resources: ids, leftOut: leftOut, outcome: outcome) } catch {
                pending?.cancel()
                throw ProviderSyncError.store("\(error)")
            }
            page.releaseInBackground()
        }
    }

    /// Fetches and reads one page: a 401 gets one new token and one more try; a first page
    /// refused for its filters is replanned.
    private func fetch(_ url: URL, index: Int, step: DownloadStep, first: Bool, since: Date?) async throws -> Fetched {
        var token = try await session.bearer()
        var response = try await http.get(url, bearer: token)
        if response.status == 401 {
            token = try await session.renewAfterUnauthorized(token)
            response = try await http.get(url, bearer: token)
            if response.status == 401 {
                let reason = "the provider refused a fresh token (401)"
                await session.markNeedsSignIn(reason)
                throw ProviderSyncError.needsSignIn(provider: await session.provider.id, reason: reason)
            }
        }
        if response.status != 200 {
            let detail = Self.outcomeText(response.body)
            if first && step.kind != .patient && [400, 422].contains(response.status) {
                if since != nil {
                    try await state.ignoreSince(index)
                    return .replanned
                }
                if step.resourceType == "Observation" && step.category == nil {
                    try await state.splitByCategory(index)
                    return .replanned
                }
            }
            if first && step.kind == .search && [400, 403, 404, 422].contains(response.status) {
                try await state.skip(index, reason: "HTTP \(response.status)" + (detail.map { " (\($0))" } ?? ""))
                return .replanned
            }
            throw ProviderSyncError.status(url: url.absoluteString, status: response.status, detail: detail)
        }
        return .page(try ProviderPage(data: response.body, url: url, base: base))
    }

    /// The first issue's text of an OperationOutcome, for error messages.
    static func outcomeText(_ body: Data) -> String? {
        guard body.count < 1 << 20, let value = try? JSONReader(limits: .default).read(body), value["resourceType"]?.stringValue == "OperationOutcome",
            let issue = value["issue"]?[0]
        else { return nil }
        return issue["diagnostics"]?.stringValue ?? issue["details"]?["text"]?.stringValue ?? issue["code"]?.stringValue
    }
}
