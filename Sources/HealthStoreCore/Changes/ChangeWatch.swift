import Foundation

/// The one observe loop: wakes when this process changes the store (its local notices) and
/// every poll interval (other processes' changes), and on each wake-up asks `step` what changed
/// after the last anchor it reported.
enum ChangeWatch {
    /// What one wake-up found: the anchor to continue from and the notice to yield, if any.
    typealias Step = @Sendable (_ last: QueryAnchor) async -> (anchor: QueryAnchor, change: StoreChange?)?

    /// A stream of notices; `start` gives the first anchor (when the caller gave none), `step`
    /// returns `nil` when nothing moved.
    static func stream(
        local: AsyncStream<StoreChange>, pollInterval: Duration, start: @escaping @Sendable () async -> QueryAnchor, step: @escaping Step
    ) -> AsyncStream<StoreChange> {
        AsyncStream(bufferingPolicy: .bufferingNewest(256)) { continuation in
            let task = Task {
                var last = await start()
                await withTaskGroup(of: Void.self) { group in
                    let (wakeUps, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
                    group.addTask {
                        for await _ in local { wake.yield() }
                    }
                    group.addTask {
                        while !Task.isCancelled {
                            try? await Task.sleep(for: pollInterval)
                            wake.yield()
                        }
                    }
                    // Changes may already be waiting when the caller passed an older anchor.
                    wake.yield()
                    for await _ in wakeUps {
                        if Task.isCancelled { break }
                        guard let found = await step(last) else { continue }
                        last = found.anchor
                        if let change = found.change { continuation.yield(change) }
                    }
                    group.cancelAll()
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
