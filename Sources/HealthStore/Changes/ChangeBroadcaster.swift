import ClinicalRecords
import Foundation
import Synchronization

/// Hands change notices from writers in this process to every observer.
final class ChangeBroadcaster: Sendable {
    private struct Subscriber {
        let continuation: AsyncStream<StoreChange>.Continuation
    }

    private let subscribers = Mutex<[UUID: Subscriber]>([:])

    /// A stream of every notice published from now on.
    func subscribe() -> AsyncStream<StoreChange> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<StoreChange>.makeStream(bufferingPolicy: .bufferingNewest(256))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = Subscriber(continuation: continuation) }
        return stream
    }

    /// Sends a notice to every subscriber.
    func publish(_ change: StoreChange) {
        let targets = subscribers.withLock { Array($0.values) }
        for s in targets { s.continuation.yield(change) }
    }
}
