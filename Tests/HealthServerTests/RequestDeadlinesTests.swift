import Testing

@testable import HealthServer

/// The server's one clock for request deadlines: a deadline passes, a finished request leaves
/// nothing behind, and a request cancelled before it parks is not left waiting.
@Suite struct RequestDeadlinesTests {
    @Test func aDeadlinePassesAfterTheTimeout() async throws {
        let deadlines = RequestDeadlines(timeout: .milliseconds(40))
        let start = ContinuousClock.now
        #expect(await deadlines.expired())
        let waited = ContinuousClock.now - start
        // Not before the timeout; how long after depends on how busy the test run keeps the
        // task pool (a full parallel run has kept it a minute and more).
        #expect(waited >= .milliseconds(40), "waited \(waited)")
        #expect(deadlines.waitingCount == 0)
    }

    @Test func finishedRequestsLeaveNothingWaiting() async throws {
        let deadlines = RequestDeadlines(timeout: .seconds(3600))
        for _ in 0..<1000 {
            let waiter = Task { await deadlines.expired() }
            await Task.yield()
            waiter.cancel()
            #expect(await waiter.value == false)
        }
        #expect(deadlines.waitingCount == 0)
    }

    @Test func aRequestCancelledBeforeItWaitsIsNotLeftWaiting() async throws {
        let deadlines = RequestDeadlines(timeout: .seconds(3600))
        let waiter = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await deadlines.expired()
        }
        #expect(await waiter.value == false)
        #expect(deadlines.waitingCount == 0)
    }
}
