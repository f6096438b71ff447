import ClinicalRecords
import Dispatch

/// Pulls resources from a synchronous producer in batches on a thread outside Swift's
/// cooperative pool (a producer may block reading a file), one batch ahead of the writer, so
/// reading and writing overlap while at most two batches are in memory.
final class ProducerFeed {
    /// The most resources in one batch.
    static let batchCount = 256
    /// The most resource bytes in one batch (a batch holds at least one resource).
    static let batchBytes = 8 << 20

    private let producer: any ResourceProducer
    private var pending: Task<[ClassifiedResource], any Error>?
    private var finished = false

    init(_ producer: any ResourceProducer) { self.producer = producer }

    /// The next batch; `nil` when the producer has no more. A producer's error is thrown here.
    func next() async throws -> [ClassifiedResource]? {
        guard !finished else { return nil }
        let task = pending ?? start()
        pending = nil
        let batch: [ClassifiedResource]
        do { batch = try await task.value } catch {
            finished = true
            throw error
        }
        if batch.isEmpty {
            finished = true
            return nil
        }
        pending = start()
        return batch
    }

    /// Waits for a pull still running (after a failed write), so the producer is not in use
    /// once the import returns.
    func drain() async {
        finished = true
        if let pending { _ = try? await pending.value }
        pending = nil
    }

    private func start() -> Task<[ClassifiedResource], any Error> { Self.start(producer) }

    private static func start(_ producer: any ResourceProducer) -> Task<[ClassifiedResource], any Error> {
        Task.detached { try await pullOnAThread(producer) }
    }

    private static func pullOnAThread(_ producer: any ResourceProducer) async throws -> [ClassifiedResource] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                let result: Result<[ClassifiedResource], any Error>
                do { result = .success(try pull(producer)) } catch { result = .failure(error) }
                continuation.resume(with: result)
            }
        }
    }

    private static func pull(_ producer: any ResourceProducer) throws -> [ClassifiedResource] {
        var batch: [ClassifiedResource] = []
        var bytes = 0
        while batch.count < batchCount, bytes < batchBytes, let item = try producer.next() {
            batch.append(item)
            bytes += item.resource.data.count
        }
        return batch
    }
}
