import ClinicalRecords
import Foundation

extension HealthStore {
    /// Change notices for some clinical types, like HealthKit's observer query.
    ///
    /// Changes made through this store object arrive at once; changes made by other processes
    /// (another `healthrecords import`) are found by checking the anchor every `pollInterval`.
    /// Each notice carries the anchor to pass to an ``AnchoredQuery``.
    ///
    /// - Parameter types: the types to watch; `nil` for all.
    public func observe(types: Set<ClinicalType>? = nil, pollInterval: Duration = .seconds(1)) -> AsyncStream<StoreChange> {
        let local = localChanges()
        let store = self
        return AsyncStream(bufferingPolicy: .bufferingNewest(256)) { continuation in
            let task = Task {
                var last = (try? await store.currentAnchor()) ?? .initial
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
                    for await _ in merged {
                        if Task.isCancelled { break }
                        guard let now = try? await store.currentAnchor(), now > last else { continue }
                        let changed = (try? await store.changedTypes(since: last)) ?? []
                        last = now
                        let relevant = types.map { changed.intersection($0) } ?? changed
                        if !relevant.isEmpty { continuation.yield(StoreChange(types: relevant, anchor: now)) }
                    }
                    group.cancelAll()
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
