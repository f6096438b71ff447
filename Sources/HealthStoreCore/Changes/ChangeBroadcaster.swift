import ClinicalRecords
import Foundation
import Synchronization

/// Hands change notices from writers in this process to every observer (every engine has one).
package final class ChangeBroadcaster: Sendable {
    private struct Subscriber {
        let continuation: AsyncStream<StoreChange>.Continuation
    }

    private let subscribers = Mutex<[UUID: Subscriber]>([:])

    /// Makes a broadcaster with no subscribers.
    package init() {}

    /// A stream of every notice published from now on.
    package func subscribe() -> AsyncStream<StoreChange> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<StoreChange>.makeStream(bufferingPolicy: .bufferingNewest(256))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = Subscriber(continuation: continuation) }
        return stream
    }

    /// Sends a notice to every subscriber.
    package func publish(_ change: StoreChange) {
        let targets = subscribers.withLock { Array($0.values) }
        for s in targets { s.continuation.yield(change) }
    }
}
