import ClinicalRecords
import Foundation

extension HealthStore {
    /// Change notices for some clinical types, like HealthKit's observer query.
    ///
    /// Changes made through this store object arrive at once; changes made by other processes
    /// (another `healthrecords import`) are found by checking the anchor every `pollInterval`.
    /// Each notice carries the anchor to pass to an ``AnchoredQuery``.
    ///
    /// - Parameters:
    ///   - types: the types to watch; `nil` for all.
    ///   - anchor: report changes after this anchor; `nil` for changes after the observer starts.
    public func observe(types: Set<ClinicalType>? = nil, after anchor: QueryAnchor? = nil, pollInterval: Duration = .seconds(1)) -> AsyncStream<StoreChange> {
        let local = localChanges()
        let store = self
        return AsyncStream(bufferingPolicy: .bufferingNewest(256)) { continuation in
            let task = Task {
                var last: QueryAnchor
                if let anchor { last = anchor } else { last = (try? await store.currentAnchor()) ?? .initial }
                await withTaskGroup(of: Void.self) { group in
                    let (merged, sink) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
                    group.addTask {
                        for await _ in local { sink.yield() }
                    }
                    group.addTask {
                        while !Task.isCancelled {
                            try? await Task.sleep(for: pollInterval)
                            sink.yield()
                        }
                    }
                    // Changes may already be waiting when the caller passed an older anchor.
                    sink.yield()
                    for await _ in merged {
                        if Task.isCancelled { break }
                        guard let summary = try? await store.changeSummary(since: last), summary.anchor > last else { continue }
                        last = summary.anchor
                        let relevant = types.map { summary.types.intersection($0) } ?? summary.types
                        if !relevant.isEmpty { continuation.yield(StoreChange(types: relevant, anchor: summary.anchor)) }
                    }
                    group.cancelAll()
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
