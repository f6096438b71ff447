@testable import HealthStoreCore
import Testing

/// Log batches that fail to be written are kept and tried again, waiting longer after each
/// failure in a row (up to 30 s) and the usual 50 ms again once a write succeeds — so a database
/// that went away does not have every person's queue retrying twenty times a second.
@Suite struct BatchQueueTests {
    @Test func retriesBackOffAndAWriteResetsThem() {
        let queue = BatchQueue<Int>()
        #expect(queue.wait == .milliseconds(50))
        #expect(queue.append(1) && !queue.append(2))
        let batch = queue.take()
        #expect(batch == [1, 2])
        #expect(queue.restore(batch))
        #expect(queue.wait == .milliseconds(100))
        _ = queue.append(3)
        #expect(queue.take() == [1, 2, 3])
        _ = queue.restore([1, 2, 3])
        #expect(queue.wait == .milliseconds(200))
        for _ in 0..<20 { _ = queue.restore([]) }
        #expect(queue.wait == .seconds(30))
        queue.written()
        #expect(queue.wait == .milliseconds(50))
        #expect(queue.take() == [1, 2, 3])
    }
}
