import ClinicalRecords
import Dispatch
import Foundation

/// Pulls resources from a synchronous producer in batches on a thread outside Swift's
/// cooperative pool (a producer may block reading a file), one batch ahead of the writer, so
/// reading and writing overlap while at most two batches are in memory. Each resource is
/// prepared (identity key, digest, sealed columns) where the producer makes it, on this thread
/// or the producer's own, so that work does not hold up the writer.
final class ProducerFeed {
    /// The most resources in one batch.
    static let batchCount = 256
    /// The first batch is this small, so the writer starts while a large page is still being
    /// read; a page of a search (200) still goes in two batches.
    static let firstBatchCount = 64
    /// The most resource bytes in one batch (a batch holds at least one resource).
    static let batchBytes = 8 << 20

    private let producer: any ResourceProducer
    private let key: @Sendable (ClassifiedResource) throws -> PreparedResource
    private var pending: Task<[PreparedResource], any Error>?
    private var finished = false
    private var limit = ProducerFeed.firstBatchCount

    /// - Parameter key: prepares a resource for the writer (identity key, digest, sealed columns).
    init(_ producer: any ResourceProducer, key: @escaping @Sendable (ClassifiedResource) throws -> PreparedResource) {
        self.producer = producer
        self.key = key
    }

    /// The next batch; `nil` when the producer has no more. A producer's error is thrown here.
    func next() async throws -> [PreparedResource]? {
        guard !finished else { return nil }
        let task = pending ?? start()
        pending = nil
        let batch: [PreparedResource]
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

    private func start() -> Task<[PreparedResource], any Error> {
        // Then full batches: 64, 256, 256…
        defer { limit = Self.batchCount }
        return Self.start(producer, key, limit)
    }

    private static func start(_ producer: any ResourceProducer, _ key: @escaping @Sendable (ClassifiedResource) throws -> PreparedResource, _ limit: Int) -> Task<[PreparedResource], any Error> {
        Task.detached { try await pullOnAThread(producer, key, limit) }
    }

    private static func pullOnAThread(_ producer: any ResourceProducer, _ key: @escaping @Sendable (ClassifiedResource) throws -> PreparedResource, _ limit: Int) async throws -> [PreparedResource] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                let result: Result<[PreparedResource], any Error>
                do { result = .success(try pull(producer, key, limit)) } catch { result = .failure(error) }
                continuation.resume(with: result)
            }
        }
    }

    private static func pull(_ producer: any ResourceProducer, _ key: @escaping @Sendable (ClassifiedResource) throws -> PreparedResource, _ limit: Int) throws -> [PreparedResource] {
        var batch: [PreparedResource] = []
        var bytes = 0
        while batch.count < limit, bytes < batchBytes, let item = try producer.nextPrepared(key) {
            // Only this feed's `key` makes the producer's prepared values.
            let prepared = item as! PreparedResource
            batch.append(prepared)
            bytes += prepared.sealedData.count
        }
        return batch
    }
}
